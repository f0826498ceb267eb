import fs from 'node:fs';
const snap = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const f = snap.snapshot.meta.node_fields; const types = snap.snapshot.meta.node_types[0];
const n = f.length; const nodes = snap.nodes; const strings = snap.strings;
const iType = f.indexOf('type'), iName = f.indexOf('name'), iSize = f.indexOf('self_size');
const by = new Map();
for (let i = 0; i < nodes.length; i += n) {
  const type = types[nodes[i + iType]]; let name = strings[nodes[i + iName]];
  const key = type === 'object' || type === 'closure' ? `${type}:${name}` : type === 'string' || type === 'concatenated string' || type === 'sliced string' ? 'string' : `${type}:${type === 'code' || type === 'hidden' || type === 'array' ? name.slice(0, 40) : ''}`;
  const e = by.get(key) ?? [0, 0]; e[0] += nodes[i + iSize]; e[1]++; by.set(key, e);
}
for (const [k, [size, count]] of [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, 30)) console.log(String(Math.round(size / 1e6)).padStart(5), 'MB', String(count).padStart(9), k);
