import fs from 'node:fs';
const snap = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = snap.snapshot.meta; const nf = m.node_fields.length; const ef = m.edge_fields.length;
const ntypes = m.node_types[0]; const etypes = m.edge_types[0];
const nodes = snap.nodes, edges = snap.edges, strings = snap.strings;
const iType = m.node_fields.indexOf('type'), iName = m.node_fields.indexOf('name'), iEC = m.node_fields.indexOf('edge_count'), iSize = m.node_fields.indexOf('self_size');
const eType = m.edge_fields.indexOf('type'), eName = m.edge_fields.indexOf('name_or_index'), eTo = m.edge_fields.indexOf('to_node');
const want = process.argv[3] ?? 'Object';
const shapes = new Map(); let e = 0;
for (let i = 0; i < nodes.length; i += nf) {
  const count = nodes[i + iEC];
  if (ntypes[nodes[i + iType]] === 'object' && strings[nodes[i + iName]] === want) {
    const props = [];
    for (let k = 0; k < count; k++) { const base = (e + k) * ef; if (etypes[edges[base + eType]] === 'property') props.push(strings[edges[base + eName]]); }
    const key = props.slice(0, 8).join(',');
    const s = shapes.get(key) ?? [0, 0]; s[0]++; s[1] += nodes[i + iSize]; shapes.set(key, s);
  }
  e += count;
}
for (const [k, [c, size]] of [...shapes].sort((a, b) => b[1][0] - a[1][0]).slice(0, 15)) console.log(String(c).padStart(8), String(Math.round(size / 1e6)).padStart(4), 'MB', k);
