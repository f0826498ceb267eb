/**
 * Catalogue scale (part of `npm run bench`, group `catalogue`): how the cost of search, openings
 * and holds, the import and the server's memory grow with the size of the catalogue, at N =
 * 1,000 / 10,000 / 100,000 / 1,000,000 businesses (`BENCH_CATALOGUE_SIZES`), on SQLite and
 * PostgreSQL. Up to 10,000 they are reservable restaurants all in one metro ("Bench City");
 * above that, 10,000 per metro, so a metro search sees 10,000 while the server holds them all.
 * At most 100,000 are reservable (the first ten metros): a country of 1,000,000 holds 100,000
 * restaurants taking bookings and 900,000 other businesses in ninety more metros. Every size
 * gets a fresh server process and a fresh database; each import is one streamed request, its
 * body written to a file first so the generator's speed is not the import's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { request } from 'undici';
import { demoReservationSettings, generateDemoBusinesses, seededRandom, type City } from '../src/demo/demo-dataset.js';
import { ADMIN, api, besideRaw, cpuTimesRaw, type Figure, METRO, pick, readPath, startPbs, stop, times, withPostgres } from './harness.js';

export const CATALOGUE_SIZES = (process.env.BENCH_CATALOGUE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const PER_METRO = 10_000;
/** Businesses beyond this many are not reservable: a country's restaurants taking bookings through partners. */
const RESERVABLE = 100_000;
/** Requests each connection cycles through (built before the clock starts). */
const REQUESTS_PER_CONNECTION = 500;

/** Metros beyond Bench City for the larger sizes: real places, so time zones and distances are plausible. */
const OTHER_METROS: Array<[string, string, string, string, number, number]> = [
  ['Bench Harbor', 'WA', 'US', 'America/Los_Angeles', 47.6062, -122.3321],
  ['Bench Springs', 'CO', 'US', 'America/Denver', 39.7392, -104.9903],
  ['Bench Lakes', 'IL', 'US', 'America/Chicago', 41.8781, -87.6298],
  ['Bench Bay', 'FL', 'US', 'America/New_York', 25.7617, -80.1918],
  ['Bench Hills', 'GA', 'US', 'America/New_York', 33.749, -84.388],
  ['Bench Falls', 'NY', 'US', 'America/New_York', 40.7128, -74.006],
  ['Bench Point', 'MA', 'US', 'America/New_York', 42.3601, -71.0589],
  ['Bench Valley', 'AZ', 'US', 'America/Phoenix', 33.4484, -112.074],
  ['Bench Ridge', 'TX', 'US', 'America/Chicago', 30.2672, -97.7431],
];
const firstMetros: City[] = [
  METRO,
  ...OTHER_METROS.map(([name, state, country, timezone, latitude, longitude], i) => ({
    ...METRO,
    name,
    state,
    country,
    timezone,
    latitude,
    longitude,
    zipCodes: METRO.zipCodes.map((z) => String(Number(z) + (i + 1) * 1000)),
  })),
];

/**
 * Metro `m`: the ten above, then towns around them (a name, postal codes and a centre of their
 * own, half a degree apart), so that no two metros share a name and no two businesses an alias
 * (an alias is the name and the city).
 */
function metro(m: number): City {
  const near = firstMetros[m % firstMetros.length];
  if (m < firstMetros.length) return near;
  const ring = Math.floor(m / firstMetros.length);
  return {
    ...near,
    name: `${near.name} Town ${ring}`,
    latitude: near.latitude + ring * 0.5,
    longitude: near.longitude - ring * 0.5,
    zipCodes: near.zipCodes.map((z) => String(Number(z) + ring * 100).padStart(5, '0')),
  };
}

/** What people type into a search box, over the demo dataset's cuisines and names. */
const TERMS = [
  'pizza',
  'italian',
  'sushi',
  'italian food',
  'dinner',
  'thai',
  'golden',
  'wine bar',
  'brunch',
  'steak',
  'mexican',
  'seafood',
  'restaurants',
  'noodles',
  'french bistro',
];

export interface CatalogueRun {
  database: string;
  businesses: number;
  /** Of those, reservable restaurants with reservation settings. */
  restaurants: number;
  /** The two import requests' bytes (businesses, settings). */
  importBytes: number;
  importSeconds: number;
  /** From the import's end until the first search answered (the server loading what was imported). */
  loadSeconds: number;
  rssAfterLoadMb: number;
  rssAfterRunMb: number;
  figures: Figure[];
}

/** The businesses of one size, metro by metro (generated lazily: a country's records are ~1.5 GB of JSON). */
function* businesses(count: number) {
  for (let m = 0; m * PER_METRO < count; m++) {
    const n = Math.min(PER_METRO, count - m * PER_METRO);
    const reservable = m * PER_METRO < RESERVABLE;
    for (const b of generateDemoBusinesses(n, 4242 + m, [metro(m)]))
      yield reservable ? { ...b, transactions: ['restaurant_reservation'] } : { ...b, transactions: [], is_claimed: false };
  }
}

/** Writes JSON lines to a file (what an operator would have before importing): its size in bytes. */
async function writeLines(file: string, lines: Iterable<string>): Promise<number> {
  const out = fs.createWriteStream(file);
  let bytes = 0;
  let chunk = '';
  const flush = async () => {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    chunk = '';
  };
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length > 1024 * 1024) await flush();
  }
  await flush();
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return bytes;
}

/**
 * Sends a file of JSON lines to an operator import route as one request, as `curl --data-binary
 * @file` would: the server spools it to disk as it arrives, then applies it and answers. No
 * client timeout: a country's import takes minutes to apply.
 */
async function importFile(base: string, route: string, file: string): Promise<unknown> {
  const response = await request(base + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/x-ndjson' },
    body: fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`POST ${route} → ${response.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function rssMb(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^pbs_process_resident_memory_bytes (\d+)/m.exec(text);
  return match ? Math.round(Number(match[1]) / 1024 / 1024) : NaN;
}

function searchOptions(base: string, key: string, dates: string[], reservation: boolean): Parameters<typeof autocannon>[0] {
  const city = encodeURIComponent(METRO.name);
  const request = () => ({
    method: 'GET' as const,
    path: reservation
      ? `/v3/businesses/search?location=${city}&attributes=reservation&reservation_date=${pick(dates)}&reservation_time=${pick(times)}&reservation_covers=${2 + Math.floor(Math.random() * 3)}&limit=20`
      : `/v3/businesses/search?location=${city}&term=${encodeURIComponent(pick(TERMS))}&limit=20`,
  });
  return {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    requests: [request()],
    setupClient: (client) => client.setRequests(Array.from({ length: REQUESTS_PER_CONNECTION }, request)),
  };
}

function openingsOptions(base: string, key: string, ids: string[], dates: string[]): Parameters<typeof autocannon>[0] {
  const request = () => ({
    method: 'GET' as const,
    path: `/v3/bookings/${pick(ids)}/openings?date=${pick(dates)}&time=${pick(times)}&covers=2`,
  });
  return {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    requests: [request()],
    setupClient: (client) => client.setRequests(Array.from({ length: REQUESTS_PER_CONNECTION }, request)),
  };
}

async function oneSize(
  database: string,
  dataDir: string,
  count: number,
  dates: string[],
  env: Record<string, string>,
  holdAndReserve: (name: string, base: string, key: string, ids: string[], dates: string[]) => Promise<Figure>,
): Promise<CatalogueRun> {
  const server = await startPbs(dataDir, env);
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-catalogue-'));
  try {
    const reservable = Math.min(count, RESERVABLE);
    const size = count.toLocaleString('en-US');
    const label = count > reservable ? `${size} businesses, ${database}` : `${size} restaurants, ${database}`;
    const ids: string[] = [];
    const random = seededRandom(99);
    const businessFile = path.join(files, 'businesses.jsonl');
    const settingsFile = path.join(files, 'settings.jsonl');
    let importBytes = await writeLines(
      businessFile,
      (function* () {
        for (const b of businesses(count)) yield JSON.stringify(b);
      })(),
    );
    importBytes += await writeLines(
      settingsFile,
      (function* () {
        for (const b of businesses(reservable)) {
          ids.push(b.id);
          yield JSON.stringify({ business_id: b.id, settings: demoReservationSettings(b, random) });
        }
      })(),
    );
    const started = performance.now();
    await importFile(server.url, '/admin/v1/businesses/import', businessFile);
    await importFile(server.url, '/admin/v1/reservation-settings/import', settingsFile);
    const importSeconds = (performance.now() - started) / 1000;
    process.stderr.write(`catalogue: imported ${label} (${Math.round(importBytes / 1e6)} MB) in ${importSeconds.toFixed(1)} s\n`);
    fs.rmSync(files, { recursive: true, force: true });
    const partner = await api(
      server.url,
      'POST',
      '/admin/v1/partners',
      ADMIN,
      JSON.stringify({ name: 'Bench', interfaces: ['reservations'] }),
    );
    const key = (await api(server.url, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' })))
      .api_key as string;
    // The first search waits for the server to load the catalogue it was just given.
    const loadStarted = performance.now();
    const first = await fetch(`${server.url}/v3/businesses/search?location=${encodeURIComponent(METRO.name)}&limit=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (!first.ok) throw new Error(`first search: ${first.status} ${await first.text()}`);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const rssAfterLoadMb = await rssMb(server.url);
    const metroSize = Math.min(count, PER_METRO).toLocaleString('en-US');
    const figures: Figure[] = [];
    for (const reservation of [true, false]) {
      const name = reservation
        ? `reservation search, ${metroSize} in the metro (${label})`
        : `plain search (term + location), ${metroSize} in the metro (${label})`;
      figures.push(await readPath(name, searchOptions(server.url, key, dates, reservation)));
    }
    figures.push(await readPath(`openings, any of ${label}`, openingsOptions(server.url, key, ids, dates)));
    figures.push(await besideRaw(() => holdAndReserve(`hold → reserve, any of ${label}`, server.url, key, ids, dates)));
    const rssAfterRunMb = await rssMb(server.url);
    return {
      database,
      businesses: count,
      restaurants: reservable,
      importBytes,
      importSeconds,
      loadSeconds,
      rssAfterLoadMb,
      rssAfterRunMb,
      figures,
    };
  } finally {
    fs.rmSync(files, { recursive: true, force: true });
    await stop(server);
  }
}

export async function catalogueScenario(
  dataDir: string,
  dates: string[],
  holdAndReserve: (name: string, base: string, key: string, ids: string[], dates: string[]) => Promise<Figure>,
): Promise<CatalogueRun[]> {
  const runs: CatalogueRun[] = [];
  for (const count of CATALOGUE_SIZES) {
    runs.push(await oneSize('SQLite', `${dataDir}/catalogue-sqlite-${count}`, count, dates, {}, holdAndReserve));
    await withPostgres(async (url) => {
      runs.push(await oneSize('PostgreSQL', `${dataDir}/catalogue-pg-${count}`, count, dates, { DATABASE_URL: url }, holdAndReserve));
    });
  }
  return runs;
}

/** The growth table: each figure at each size, per database. */
export function catalogueLines(runs: CatalogueRun[]): string[] {
  const cpu = (f: Figure | undefined) => {
    const times = f ? cpuTimesRaw(f) : undefined;
    if (!f || times === undefined) return '—';
    return `${f.cpuMicrosPerRequest!.toFixed(0)} µs, ${times.toFixed(2)}× raw (${Math.round(f.reqPerSec).toLocaleString('en-US')} req/s, p99 ${f.p99} ms)`;
  };
  const named = (run: CatalogueRun, prefix: string) => run.figures.find((f) => f.name.startsWith(prefix));
  return [
    '| database | businesses (reservable) | import: bytes, time | catalogue load | RSS after load / after the run | reservation search: CPU a request, × raw same bytes | plain search | openings | hold → reserve |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.database} | ${run.businesses.toLocaleString('en-US')} (${run.restaurants.toLocaleString('en-US')}) | ${Math.round(run.importBytes / 1e6).toLocaleString('en-US')} MB, ${run.importSeconds.toFixed(1)} s | ${run.loadSeconds.toFixed(1)} s | ${run.rssAfterLoadMb} / ${run.rssAfterRunMb} MB | ${cpu(named(run, 'reservation search'))} | ${cpu(named(run, 'plain search'))} | ${cpu(named(run, 'openings'))} | ${named(run, 'hold')?.extra ?? '—'} |`,
    ),
  ];
}
