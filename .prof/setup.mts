// Starts pbs (dist) with --cpu-prof, loads N restaurants, runs a search load, stops it.
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { demoReservationSettings, generateDemoBusinesses, seededRandom } from '/work/main/src/demo/demo-dataset.js';
import { METRO } from '/work/main/bench/harness.js';
const N = Number(process.env.N ?? 10000);
const KIND = process.env.KIND ?? 'plain';
const dir = `/tmp/prof/data-${Date.now()}`;
if (process.env.PG) { const { default: pg } = await import('pg'); const c = new pg.Client({ connectionString: process.env.PG }); await c.connect(); await c.query('drop schema if exists prof cascade; create schema prof'); await c.end(); }
const child = spawn(process.execPath, ['--max-semi-space-size=64', '--cpu-prof', '--cpu-prof-dir=/tmp/prof/out', '/work/main/dist/main.js', 'serve'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PBS_DATA_DIR: dir, PBS_LOG_LEVEL: 'warn', PBS_LOG_REQUESTS: '0', PBS_SEED_DEMO: '0', PBS_ADMIN_TOKEN: 'bench-admin-token', PBS_RATE_LIMIT_PER_SECOND: '1000000000', PBS_RATE_LIMIT_PER_DAY: '1000000000', ...(process.env.PG ? { DATABASE_URL: `${process.env.PG}?options=-c%20search_path%3Dprof` } : {}) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1].replace('localhost', '127.0.0.1')); }); });
const admin = async (method: string, route: string, body?: string, type = 'application/json') => { const r = await fetch(url + route, { method, headers: { authorization: 'Bearer bench-admin-token', 'content-type': type }, body }); const t = await r.text(); if (!r.ok) throw new Error(t); return JSON.parse(t); };
const metros = Array.from({ length: Math.ceil(N / 10000) }, (_, m) => (m === 0 ? METRO : { ...METRO, name: `Metro ${m}`, latitude: METRO.latitude + m, longitude: METRO.longitude + m }));
const businesses = metros.flatMap((metro, m) => generateDemoBusinesses(Math.min(10000, N - m * 10000), 4242 + m, [metro])).map((b) => ({ ...b, transactions: ['restaurant_reservation'] }));
let t = Date.now();
await admin('POST', '/admin/v1/businesses/import', businesses.map((b) => JSON.stringify(b)).join('\n'), 'application/x-ndjson');
const random = seededRandom(99);
await admin('POST', '/admin/v1/reservation-settings/import', businesses.map((b) => JSON.stringify({ business_id: b.id, settings: demoReservationSettings(b, random) })).join('\n'), 'application/x-ndjson');
console.log('import', (Date.now() - t) / 1000, 's');
const show = async (label: string) => { const m = await (await fetch(url + '/metrics')).text(); console.log(label, ['pbs_process_resident_memory_bytes', 'pbs_nodejs_heap_size_used_bytes', 'pbs_nodejs_heap_size_total_bytes'].map((n) => Math.round(Number(new RegExp(`^${n} (\\S+)`, 'm').exec(m)?.[1]) / 1e6)).join(' / '), 'MB (rss / heap used / heap total)'); };
await show('after import');
const partner = await admin('POST', '/admin/v1/partners', JSON.stringify({ name: 'P', interfaces: ['reservations'] }));
const key = (await admin('POST', `/admin/v1/partners/${partner.id}/credentials`, JSON.stringify({ kind: 'api_key' }))).api_key;
const TERMS = ['pizza', 'italian', 'sushi', 'italian food', 'dinner', 'thai', 'golden', 'wine bar', 'brunch', 'steak', 'mexican', 'seafood', 'restaurants', 'noodles', 'french bistro'];
const times = ['18:00', '18:15', '18:30', '18:45', '19:00', '19:15', '19:30', '19:45', '20:00'];
const dates = Array.from({ length: 20 }, (_, i) => new Date(Date.now() + (i + 2) * 864e5).toISOString().slice(0, 10));
const pick = <T,>(l: T[]) => l[Math.floor(Math.random() * l.length)];
const req = () => ({ method: 'GET' as const, path: KIND === 'plain' ? `/v3/businesses/search?location=Bench%20City&term=${encodeURIComponent(pick(TERMS))}&limit=20` : `/v3/businesses/search?location=Bench%20City&attributes=reservation&reservation_date=${pick(dates)}&reservation_time=${pick(times)}&reservation_covers=${2 + Math.floor(Math.random() * 3)}&limit=20` });
{ const rr = await fetch(url + req().path, { headers: { authorization: `Bearer ${key}` } }); const tt = await rr.text(); console.log('answer bytes', Buffer.byteLength(tt), 'headers', [...rr.headers].map(([k,v])=>k+': '+v).join('; ')); }
if (process.env.SHOW) { for (const q of TERMS) { const r = await fetch(`${url}/v3/businesses/search?location=Bench%20City&term=${encodeURIComponent(q)}&limit=3`, { headers: { authorization: `Bearer ${key}` } }); const j: any = await r.json(); console.log(q, j.total, j.businesses?.map((b: any) => b.name)); } }
{ const r0 = await fetch(`${url}/v3/businesses/search?location=Bench%20City&limit=1`, { headers: { authorization: `Bearer ${key}` } }); await r0.text(); await show('after catalogue load'); }
const opts = { url, headers: { authorization: `Bearer ${key}` }, connections: 50, requests: [req()], setupClient: (c: any) => c.setRequests(Array.from({ length: 500 }, req)) };
await autocannon({ ...opts, duration: 2 });
const r = await autocannon({ ...opts, duration: Number(process.env.D ?? 8) });
console.log(KIND, Math.round(r.requests.average), 'req/s p99', r.latency.p99, 'non2xx', r.non2xx);
const m = await (await fetch(url + '/metrics')).text();
for (const name of ['pbs_process_resident_memory_bytes', 'pbs_nodejs_heap_size_used_bytes', 'pbs_nodejs_heap_size_total_bytes', 'pbs_nodejs_external_memory_bytes']) console.log(name, Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(m)?.[1]) / 1e6), 'MB');
child.kill('SIGINT'); await new Promise((r) => child.on('exit', r));
