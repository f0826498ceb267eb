import fs from 'node:fs';
const [file, name] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n])); const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = p.timeDeltas; const t = new Map(); p.samples.forEach((id, i) => t.set(id, (t.get(id) ?? 0) + (dt[i] ?? 0)));
const stacks = new Map();
for (const [id, time] of t) { const n = byId.get(id); if (n.callFrame.functionName !== name) continue; const chain = []; let c = parent.get(id); while (c && chain.length < 8) { const f = byId.get(c).callFrame; chain.push(`${f.functionName || '(anon)'}:${f.url.split('/').pop()}:${f.lineNumber}`); c = parent.get(c); } const k = chain.join(' < '); stacks.set(k, (stacks.get(k) ?? 0) + time); }
for (const [k, v] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log((v / 1000).toFixed(0), 'ms', k);
