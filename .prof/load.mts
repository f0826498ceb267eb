import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPbs } from '/work/main/src/app.js';
import { loadConfig } from '/work/main/src/platform/config.js';
import { demoReservationSettings, generateDemoBusinesses, seededRandom } from '/work/main/src/demo/demo-dataset.js';
import { METRO } from '/work/main/bench/harness.js';
const N = Number(process.env.N ?? 100000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-load-'));
let url: string | undefined;
let client: pg.Client | undefined;
if (process.env.PG) { client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await client.connect(); await client.query('drop schema if exists loadtest cascade; create schema loadtest'); url = 'postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3Dloadtest'; }
const pbs = await createPbs(loadConfig({ PBS_DATA_DIR: dir, PBS_LOG_LEVEL: 'warn', PBS_TASKS: '0', PBS_SEED_DEMO: '0', PBS_ADMIN_TOKEN: 'x', ...(url ? { DATABASE_URL: url } : {}) }), { issueAdminToken: false });
const metros = Array.from({ length: Math.ceil(N / 10000) }, (_, m) => (m === 0 ? METRO : { ...METRO, name: `Metro ${m}` }));
const businesses = metros.flatMap((metro, m) => generateDemoBusinesses(Math.min(10000, N - m * 10000), 4242 + m, [metro]));
let t = performance.now();
await pbs.services.businesses.importJsonLines(businesses.map((b) => JSON.stringify(b)).join('\n'));
const random = seededRandom(99);
await pbs.services.reservations.importSettings(businesses.map((b) => JSON.stringify({ business_id: b.id, settings: demoReservationSettings(b, random) })).join('\n'));
console.log('import', ((performance.now() - t) / 1000).toFixed(1), 's');
t = performance.now();
const cat = (pbs.services.reservations as any).catalog;
const src = cat.sources;
for (const name of ['businesses', 'inventories']) { const orig = src[name]; let spent = 0; src[name] = async (...a: unknown[]) => { const s0 = performance.now(); const r = await orig(...a); spent += performance.now() - s0; (src as any)[name + 'Spent'] = spent; return r; }; }
await cat.current(true);
console.log('queries: businesses', Math.round(src.businessesSpent), 'ms, inventories', Math.round(src.inventoriesSpent), 'ms');
console.log('catalogue load', ((performance.now() - t) / 1000).toFixed(1), 's');
await pbs.close();
if (client) { if (!process.env.KEEP) await client.query('drop schema loadtest cascade'); await client.end(); }
