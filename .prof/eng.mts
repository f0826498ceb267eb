import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { generateDemoBusinesses, seededRandom } from '/work/main/src/demo/demo-dataset.js';
import { METRO } from '/work/main/bench/harness.js';
const KIND = process.env.KIND ?? 'engagement';
const dir = `/tmp/prof/data-${Date.now()}`;
const child = spawn(process.execPath, ['--max-semi-space-size=64', '/work/main/dist/main.js', 'serve'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PBS_DATA_DIR: dir, PBS_LOG_LEVEL: 'warn', PBS_LOG_REQUESTS: '0', PBS_SEED_DEMO: '0', PBS_ADMIN_TOKEN: 'bench-admin-token', PBS_RATE_LIMIT_PER_SECOND: '1000000000', PBS_RATE_LIMIT_PER_DAY: '1000000000' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1].replace('localhost', '127.0.0.1')); }); });
const api = async (method: string, route: string, body?: string, type = 'application/json') => { const r = await fetch(url + route, { method, headers: { authorization: 'Bearer bench-admin-token', 'content-type': type }, body }); const t = await r.text(); if (!r.ok) throw new Error(t); return JSON.parse(t); };
const businesses = generateDemoBusinesses(1000, 717, [METRO]).map((b, i) => ({ ...b, alias: `engagement-${i}` }));
await api('POST', '/admin/v1/businesses/import', businesses.map((b) => JSON.stringify(b)).join('\n'), 'application/x-ndjson');
const random = seededRandom(8);
const weeks = ['2031-04-07', '2031-04-14', '2031-04-21', '2031-04-28'];
await api('POST', '/admin/v1/engagement/activity', weeks.flatMap((week) => businesses.map((b) => JSON.stringify({ business_id: b.id, week, page_views: Math.floor(random() * 2000) }))).join('\n'), 'application/x-ndjson');
for (;;) { const { weeks: s } = await api('GET', '/admin/v1/engagement/weeks'); if (s.length === 4 && s.every((w: any) => w.scored)) break; await new Promise((r) => setTimeout(r, 100)); }
const partner = await api('POST', '/admin/v1/partners', JSON.stringify({ name: 'E', interfaces: ['engagement', 'private_reviews'] }));
await api('POST', `/admin/v1/partners/${partner.id}/businesses/import`, businesses.map((b) => b.id).join('\n'), 'text/csv');
const client = await api('POST', `/admin/v1/partners/${partner.id}/credentials`, JSON.stringify({ kind: 'oauth_client' }));
const tok = await fetch(`${url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString() });
const token = ((await tok.json()) as any).access_token;
const pick = <T,>(l: T[]) => l[Math.floor(Math.random() * l.length)];
const request = () => { const ids = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? pick(businesses).alias : pick(businesses).id)); const range = Math.random() < 0.5 ? '' : `&date_range_start=${weeks[0]}&date_range_end=${weeks[3]}`; return { method: 'GET' as const, path: `/v3/businesses/engagement?business_ids=${ids.join(',')}${range}` }; };
const opts = { url, headers: { authorization: `Bearer ${token}` }, connections: 50, requests: [request()], setupClient: (c: any) => c.setRequests(Array.from({ length: 500 }, request)) };
{ const r0 = await fetch(url + request().path, { headers: { authorization: `Bearer ${token}` } }); const t0 = await r0.text(); console.log('answer bytes', t0.length, r0.status); }
await autocannon({ ...opts, duration: 2 });
const fs = await import('node:fs');
const cpu = () => { const f = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const sys = () => Number(fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')[12]) / 100;
const y0 = sys();
const self = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const c0 = cpu(); const s0 = self(); const w0 = Date.now();
const r = await autocannon({ ...opts, duration: Number(process.env.D ?? 8) });
const wall = (Date.now() - w0) / 1000;
console.log('server cpu', ((cpu() - c0) / wall * 100).toFixed(0), '% of a core (system ' + ((sys() - y0) / ((Date.now() - w0) / 1000) * 100).toFixed(0) + '%); client', ((self() - s0) / wall * 100).toFixed(0), '%');
console.log(KIND, Math.round(r.requests.average), 'req/s p99', r.latency.p99, 'non2xx', r.non2xx);
child.kill('SIGINT'); await new Promise((res) => child.on('exit', res));
