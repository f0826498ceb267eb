import fs from 'node:fs';
const [file, n = '30', lastS = '0'] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map(); for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
let t = p.startTime; const times = p.timeDeltas.map((d) => (t += d));
const from = Number(lastS) > 0 ? p.endTime - Number(lastS) * 1e6 : 0;
const self = new Map(); const incl = new Map(); let total = 0;
p.samples.forEach((id, i) => {
  if (times[i] < from) return; const d = p.timeDeltas[i + 1] ?? 0; total += d;
  const key = (x) => { const cf = x.callFrame; return `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`; };
  self.set(key(byId.get(id)), (self.get(key(byId.get(id))) ?? 0) + d);
  const seen = new Set(); for (let c = id; c; c = parent.get(c)) { const k = key(byId.get(c)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + d); } }
});
console.log('--- self'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log((v / total * 100).toFixed(1).padStart(5), '%', k);
console.log('--- inclusive'); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log((v / total * 100).toFixed(1).padStart(5), '%', k);
