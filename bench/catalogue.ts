/**
 * Catalogue scale (part of `npm run bench`, group `catalogue`): how the cost of search, openings
 * and holds, the import and the server's memory grow with the number of reservable restaurants,
 * at N = 1,000 / 10,000 / 100,000 (`BENCH_CATALOGUE_SIZES`), on SQLite and PostgreSQL. Up to
 * 10,000 the restaurants are all in one metro ("Bench City"); above that, 10,000 per metro over
 * several metros, so a metro search sees 10,000 restaurants while the server holds them all.
 * Every size gets a fresh server process and a fresh database.
 */
import { Readable } from 'node:stream';
import type autocannon from 'autocannon';
import { demoReservationSettings, generateDemoBusinesses, seededRandom, type City } from '../src/demo/demo-dataset.js';
import {
  ADMIN,
  api,
  besideRaw,
  besideRawAndSameSize,
  meanAnswerBytes,
  type Figure,
  measure,
  METRO,
  pick,
  startPbs,
  stop,
  times,
  withPostgres,
} from './harness.js';

export const CATALOGUE_SIZES = (process.env.BENCH_CATALOGUE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const PER_METRO = 10_000;
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
const metros: City[] = [
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
  restaurants: number;
  importSeconds: number;
  /** From the import's end until the first search answered (the server loading what was imported). */
  loadSeconds: number;
  rssAfterLoadMb: number;
  rssAfterRunMb: number;
  figures: Figure[];
}

/** The restaurants of one size, metro by metro (generated lazily: 100,000 records are ~120 MB of JSON). */
function* restaurants(count: number) {
  for (let m = 0; m * PER_METRO < count; m++) {
    const n = Math.min(PER_METRO, count - m * PER_METRO);
    for (const b of generateDemoBusinesses(n, 4242 + m, [metros[m % metros.length]]))
      yield { ...b, transactions: ['restaurant_reservation'] };
  }
}

/** Streams JSON lines to an operator import route; the server reads them as they arrive. */
async function streamImport(base: string, route: string, lines: Iterable<string>): Promise<unknown> {
  const iterator = lines[Symbol.iterator]();
  const body = Readable.from(
    (function* () {
      let chunk = '';
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        chunk += `${next.value}\n`;
        if (chunk.length > 256 * 1024) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    })(),
  );
  const response = await fetch(base + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/x-ndjson' },
    body: Readable.toWeb(body) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${route} → ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The mean size of a scenario's answers, from 20 of its requests. */
async function answerBytes(base: string, key: string, options: Parameters<typeof autocannon>[0]): Promise<number> {
  const requests: Array<{ path: string }> = [];
  options.setupClient!({ setRequests: (list: Array<{ path: string }>) => requests.push(...list) } as never);
  return meanAnswerBytes(
    base,
    key,
    requests.map((r) => r.path),
  );
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
  try {
    const label = `${count.toLocaleString('en-US')} restaurants, ${database}`;
    const started = performance.now();
    const ids: string[] = [];
    await streamImport(
      server.url,
      '/admin/v1/businesses/import',
      (function* () {
        for (const b of restaurants(count)) {
          ids.push(b.id);
          yield JSON.stringify(b);
        }
      })(),
    );
    const random = seededRandom(99);
    await streamImport(
      server.url,
      '/admin/v1/reservation-settings/import',
      (function* () {
        for (const b of restaurants(count)) yield JSON.stringify({ business_id: b.id, settings: demoReservationSettings(b, random) });
      })(),
    );
    const importSeconds = (performance.now() - started) / 1000;
    process.stderr.write(`catalogue: imported ${label} in ${importSeconds.toFixed(1)} s\n`);
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
      const options = searchOptions(server.url, key, dates, reservation);
      figures.push(await besideRawAndSameSize(await answerBytes(server.url, key, options), () => measure(name, options)));
    }
    figures.push(await besideRaw(() => measure(`openings, any of ${label}`, openingsOptions(server.url, key, ids, dates))));
    figures.push(await besideRaw(() => holdAndReserve(`hold → reserve, any of ${label}`, server.url, key, ids, dates)));
    const rssAfterRunMb = await rssMb(server.url);
    return { database, restaurants: count, importSeconds, loadSeconds, rssAfterLoadMb, rssAfterRunMb, figures };
  } finally {
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
  const ratio = (f: Figure | undefined) => {
    if (!f?.raw) return '—';
    const same = f.rawSameSize ? `, ${((f.reqPerSec / f.rawSameSize.reqPerSec) * 100).toFixed(0)} % of the same-size ceiling` : '';
    return `${((f.reqPerSec / f.raw) * 100).toFixed(1)} %${same} (p99 ${f.p99} ms)`;
  };
  const named = (run: CatalogueRun, prefix: string) => run.figures.find((f) => f.name.startsWith(prefix));
  return [
    'catalogue scale (growth: each figure at each size; "vs raw" = share of raw node:http measured just before; fresh server per size):',
    '',
    '| database | restaurants | import (businesses + settings) | catalogue load | RSS after load / after the run | reservation search | plain search | openings | hold → reserve |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.database} | ${run.restaurants.toLocaleString('en-US')} | ${run.importSeconds.toFixed(1)} s | ${run.loadSeconds.toFixed(1)} s | ${run.rssAfterLoadMb} / ${run.rssAfterRunMb} MB | ${ratio(named(run, 'reservation search'))} | ${ratio(named(run, 'plain search'))} | ${ratio(named(run, 'openings'))} | ${named(run, 'hold')?.extra ?? '—'} |`,
    ),
  ];
}
