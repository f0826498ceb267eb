/**
 * `npm run bench`: starts the servers it measures as separate processes on loopback, drives them
 * with autocannon and prints req/s and latency, each scenario beside a raw node:http baseline
 * measured just before it, and the CPU steal meanwhile.
 *
 * Options: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_PG_URL (PostgreSQL for the PostgreSQL scenarios; default the local test database,
 * BENCH_PG_URL=off skips them), BENCH_PAIRS (raw/scenario pairs for the ratio scenarios, default 3),
 * BENCH_WEBHOOK_MESSAGES (default 5000), BENCH_ONLY (a comma list of
 * openings, search, holds, hostile, advertising, waitlist, reviews, engagement, scoring, catalogue, scaleout,
 * webhooks: only those groups run, after /healthz). BENCH_SCORING_SIZES: businesses of the scoring
 * runs (default 10000,100000,1000000). BENCH_CATALOGUE_SIZES: restaurants of the catalogue-scale
 * runs (default 1000,10000,100000; bench/catalogue.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { generateDemoBusinesses, seededRandom } from '../src/demo/demo-dataset.js';
import { openDatabase } from '../src/platform/db/database.js';
import { catalogueLines, catalogueScenario, type CatalogueRun } from './catalogue.js';
import { bareLoop, percentile, startReceiver, type WebhookFigures } from './webhooks.js';
import { hostileBodiesScenario } from './hostile.js';
import {
  ADMIN,
  api,
  besideRaw,
  CONNECTIONS,
  DURATION,
  type Figure,
  loadMetro,
  medianBy,
  PAIRS,
  type Started,
  measure,
  METRO,
  pairedWithRaw,
  PG_URL,
  pick,
  ROOT,
  row,
  setRawUrl,
  start,
  startPbs,
  stop,
  times,
  upcomingDates,
  withPostgres,
  withSteal,
} from './harness.js';

/** Requests each openings connection cycles through; ×50 connections, 50,000 random (restaurant, date, time). */
const OPENINGS_REQUESTS_PER_CONNECTION = 1000;

/**
 * Random openings requests, built before the clock starts: each connection gets its own list of
 * random restaurants, dates and times and cycles through it. Building each request as it is sent
 * (autocannon's `setupRequest`) copies autocannon's whole options object twice per request; on
 * two cores shared with the server that cost comes out of the server's share, and the raw
 * node:http baseline (one fixed request) does not pay it.
 */
function openingsOptions(base: string, key: string, ids: string[], dates: string[]): Parameters<typeof autocannon>[0] {
  const randomRequest = () => ({ method: 'GET' as const, path: `/v3/bookings/${pick(ids)}/openings?date=${pick(dates)}&time=${pick(times)}&covers=2` });
  return {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    requests: [randomRequest()],
    setupClient: (client) => client.setRequests(Array.from({ length: OPENINGS_REQUESTS_PER_CONNECTION }, randomRequest)),
  };
}

/** Each connection loops: hold a random slot, then reserve it with the hold id. */
async function holdAndReserve(name: string, base: string, key: string, ids: string[], dates: string[]): Promise<Figure> {
  let reservations = 0;
  const options = (): Parameters<typeof autocannon>[0] => ({
    url: base,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
    requests: [
      {
        method: 'POST',
        setupRequest: (req: Record<string, unknown>, context: Record<string, string>) => {
          const id = pick(ids);
          const form = { date: pick(dates), time: pick(times), covers: '2', unique_id: randomBytes(8).toString('hex') };
          Object.assign(context, form, { id, hold_id: '' });
          return { ...req, path: `/v3/bookings/${id}/holds`, body: new URLSearchParams(form).toString() };
        },
        onResponse: (status: number, body: string, context: Record<string, string>) => {
          if (status === 200) context.hold_id = JSON.parse(body).hold_id ?? '';
        },
      },
      {
        method: 'POST',
        setupRequest: (req: Record<string, unknown>, context: Record<string, string>) => {
          const form = {
            date: context.date,
            time: context.time,
            covers: '2',
            unique_id: context.unique_id,
            hold_id: context.hold_id || 'AAAAAAAAAAAAAAAAAAAAAA',
            first_name: 'Bench',
            last_name: 'Mark',
            phone: '+14155550100',
            email: 'bench@example.com',
          };
          return { ...req, path: `/v3/bookings/${context.id}/reservations`, body: new URLSearchParams(form).toString() };
        },
        onResponse: (status: number) => {
          if (status === 200) reservations++;
        },
      },
    ],
  });
  await autocannon({ ...options(), connections: CONNECTIONS, duration: 2 });
  reservations = 0;
  const [r, stealPercent] = await withSteal(() => autocannon({ ...options(), connections: CONNECTIONS, duration: DURATION }));
  const perSecond = reservations / DURATION;
  return {
    name,
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    connections: CONNECTIONS,
    stealPercent,
    extra: `${Math.round(perSecond).toLocaleString('en-US')} hold+reserve/s`,
  };
}


const WEBHOOK_MESSAGES = Number(process.env.BENCH_WEBHOOK_MESSAGES ?? 5000);
/** Businesses of the engagement scoring runs (BENCH_SCORING_SIZES, a comma list): the growth up to a country. */
const SCORING_SIZES = (process.env.BENCH_SCORING_SIZES ?? process.env.BENCH_SCORING_BUSINESSES ?? '10000,100000,1000000').split(',').map(Number);
/** BENCH_ONLY=openings,webhooks runs /healthz and those groups of scenarios only. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((g) => g.trim())) : undefined;
const wanted = (group: 'openings' | 'search' | 'holds' | 'webhooks' | 'advertising' | 'waitlist' | 'reviews' | 'engagement' | 'scaleout' | 'catalogue' | 'scoring' | 'hostile') =>
  !ONLY || ONLY.has(group);

const ALL_DAY = [{ hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359' })) }];

/**
 * Scale-out on PostgreSQL: the same reads (openings of 1,000 restaurants) and writes (hold →
 * reserve) against `pbs serve` as one process and as a cluster of N API processes sharing the
 * port (PBS_PROCESSES=N, plus the worker process), each on a fresh schema. Afterwards no table
 * may hold two active reservations whose times overlap.
 */
async function scaleOutScenario(dataDir: string, dates: string[]): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const processes of [1, 2]) {
    await withPostgres(async (url) => {
      const server = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, `scale-${processes}`), PBS_PROCESSES: String(processes) });
      try {
        const metro = await loadMetro(server.url, 1_000);
        const label = `${processes} API process${processes > 1 ? 'es' : ''}`;
        figures.push(await measure(`scale-out: openings, 1,000 restaurants (PostgreSQL, ${label})`, openingsOptions(server.url, metro.key, metro.ids, dates)));
        const retriesBefore = await counterOverProcesses(server.url, 'pbs_booking_retries_total', processes);
        figures.push(await holdAndReserve(`scale-out: hold → reserve (PostgreSQL, ${label})`, server.url, metro.key, metro.ids, dates));
        const retries = (await counterOverProcesses(server.url, 'pbs_booking_retries_total', processes)) - retriesBefore;
        const overbooked = await overbookedSlots(url);
        if (overbooked > 0) throw new Error(`${overbooked} pairs of overlapping reservations of one table with ${label}`);
        figures[figures.length - 1].extra += `; ${retries.toLocaleString('en-US')} decided again under the restaurant lock; no table double-booked`;
      } finally {
        await stop(server);
      }
    });
  }
  return figures;
}

/**
 * A counter summed over the API processes behind one port: the cluster hands each new connection
 * to the next process, so a few scrapes on fresh connections reach them all, told apart by
 * `pbs_process_info`'s pid.
 */
async function counterOverProcesses(base: string, name: string, processes: number): Promise<number> {
  const byPid = new Map<string, number>();
  for (let i = 0; i < processes * 10 && byPid.size < processes; i++) {
    const text = await new Promise<string>((resolve, reject) => {
      http.get(`${base}/metrics`, { agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    const pid = /^pbs_process_info\{pid="(\d+)"/m.exec(text)?.[1] ?? `unknown-${i}`;
    byPid.set(pid, Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0));
  }
  return [...byPid.values()].reduce((sum, value) => sum + value, 0);
}

/** Pairs of active reservations of one table whose times overlap: a double booking. */
async function overbookedSlots(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from reservations a join reservations b
         on a.table_id = b.table_id and a.id < b.id and a.start_at < b.end_at and b.start_at < a.end_at
       where a.status = 'active' and b.status = 'active'`,
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * Waitlist: status reads of 100 restaurants with a line (each 10 parties, from the restaurant
 * side), beside raw node:http; then joins at one busy restaurant, each connection sending its
 * own guests (distinct phones), so every join is accepted.
 */
async function waitlistScenario(name: string, base: string): Promise<Figure[]> {
  const businesses = generateDemoBusinesses(100, 515, [METRO]);
  await api(base, 'POST', '/admin/v1/businesses/import', ADMIN, businesses.map((b) => JSON.stringify(b)).join('\n'), 'application/x-ndjson');
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Waitlist bench', interfaces: ['waitlist'] }));
  const key = (await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' }))).api_key as string;
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, businesses.map((b) => b.id).join('\n'), 'text/csv');
  for (const b of businesses) {
    await api(base, 'PUT', `/admin/v1/businesses/${b.id}/waitlist`, ADMIN, JSON.stringify({ hours: ALL_DAY, max_party_size: 20, auto_advance: false }));
    for (let i = 0; i < 10; i++) await api(base, 'POST', `/admin/v1/businesses/${b.id}/waitlist/walk-ins`, ADMIN, JSON.stringify({ party_size: 1 + (i % 8) }));
  }
  const statusRequest = () => ({ method: 'GET' as const, path: `/v3/businesses/${pick(businesses).id}/waitlist/status` });
  const reads = await pairedWithRaw(() =>
    measure(`waitlist status, 100 restaurants (${name})`, {
      url: base,
      headers: { authorization: `Bearer ${key}` },
      requests: [statusRequest()],
      setupClient: (client) => client.setRequests(Array.from({ length: 500 }, statusRequest)),
    }),
  );
  const busy = businesses[0].id;
  let connection = 0;
  const joins = await measure(`waitlist joins, one restaurant (${name})`, {
    url: base,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', path: `/v3/businesses/${busy}/waitlist/visits`, body: '{}' }],
    setupClient: (client) => {
      const c = ++connection;
      client.setRequests(
        Array.from({ length: 2000 }, (_, i) => ({
          method: 'POST' as const,
          path: `/v3/businesses/${busy}/waitlist/visits`,
          body: JSON.stringify({ phone: `+1${3_000_000_000 + c * 100_000 + i}`, party_size: 1 + (i % 6), name: `Guest ${i}` }),
        })),
      );
    },
  });
  return [reads, joins];
}

/** A partner with `interfaces`, linked to `ids`, and its OAuth access token (reviews and engagement take the token flow). */
async function tokenPartner(base: string, name: string, interfaces: string[], ids: string[]): Promise<string> {
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name, interfaces }));
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, ids.join('\n'), 'text/csv');
  const client = await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'oauth_client' }));
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
  const token = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  return ((await token.json()) as { access_token: string }).access_token;
}

/**
 * Private reviews: one business with 1,000 reviews (a fifth also in French, a third answered),
 * read page by page (20 a page, every offset, English and French), beside raw node:http.
 */
async function reviewsScenario(name: string, base: string): Promise<Figure> {
  const business = { ...generateDemoBusinesses(1, 616, [METRO])[0], alias: 'reviewed-bench-business' };
  await api(base, 'POST', '/admin/v1/businesses/import', ADMIN, JSON.stringify(business), 'application/x-ndjson');
  const random = seededRandom(7);
  const start = Date.parse('2030-01-01T00:00:00Z');
  const reviews = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({
      business_id: business.id,
      id: `bench-review-${i}`,
      rating: 1 + Math.floor(random() * 5),
      text: i % 5 === 0 ? { en_US: `Review ${i}: ${'good food '.repeat(30)}`, fr_FR: `Avis ${i} : ${'bonne cuisine '.repeat(30)}` } : `Review ${i}: ${'good food '.repeat(30)}`,
      user: { name: `Guest Number${i}`, image_url: `https://img.example/u/${i}.jpg` },
      time_created: new Date(start + i * 3_600_000).toISOString(),
      ...(i % 3 === 0 ? { public_response: { text: 'Thank you!', business_user: { name: 'Owner', role: 'OWNER' } } } : {}),
    }),
  );
  await api(base, 'POST', '/admin/v1/reviews/import?notify=false', ADMIN, reviews.join('\n'), 'application/x-ndjson');
  const token = await tokenPartner(base, 'Reviews bench', ['private_reviews'], [business.id]);
  const pages = Array.from({ length: 50 }, (_, page) => ({ method: 'GET' as const, path: `/v3/private/businesses/${business.id}/reviews?limit=20&offset=${page * 20}` }));
  const french = Array.from({ length: 10 }, (_, page) => ({ method: 'GET' as const, path: `/v3/private/businesses/${business.id}/reviews?locale=fr_FR&offset=${page * 20}` }));
  const requests = [...pages, ...french];
  return pairedWithRaw(() =>
    measure(`private reviews, a business with 1,000 reviews (${name})`, {
      url: base,
      headers: { authorization: `Bearer ${token}` },
      requests: [requests[0]],
      setupClient: (client) => client.setRequests(Array.from({ length: 600 }, () => pick(requests))),
    }),
  );
}

/**
 * Engagement reads: 1,000 businesses with 4 scored weeks, 20 random businesses per request (a
 * quarter by alias), the default week or the four weeks, beside raw node:http.
 */
async function engagementScenario(name: string, base: string): Promise<Figure> {
  const businesses = generateDemoBusinesses(1000, 717, [METRO]).map((b, i) => ({ ...b, alias: `engagement-${i}` }));
  await api(base, 'POST', '/admin/v1/businesses/import', ADMIN, businesses.map((b) => JSON.stringify(b)).join('\n'), 'application/x-ndjson');
  const random = seededRandom(8);
  const weeks = ['2031-04-07', '2031-04-14', '2031-04-21', '2031-04-28'];
  const lines = weeks.flatMap((week) =>
    businesses.map((b) =>
      JSON.stringify({ business_id: b.id, week, page_views: Math.floor(random() * 2000), website_clicks: Math.floor(random() * 50), calls_and_messages: Math.floor(random() * 20), transactions: Math.floor(random() * 5) }),
    ),
  );
  await api(base, 'POST', '/admin/v1/engagement/activity', ADMIN, lines.join('\n'), 'application/x-ndjson');
  // The server's task scores the four weeks.
  for (let i = 0; ; i++) {
    const { weeks: state } = await api(base, 'GET', '/admin/v1/engagement/weeks', ADMIN);
    if (state.length === weeks.length && state.every((w: { scored: boolean }) => w.scored)) break;
    if (i > 600) throw new Error('engagement weeks were not scored within a minute');
    await new Promise((r) => setTimeout(r, 100));
  }
  const token = await tokenPartner(base, 'Engagement bench', ['engagement'], businesses.map((b) => b.id));
  const request = () => {
    const ids = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? pick(businesses).alias : pick(businesses).id));
    const range = random() < 0.5 ? '' : `&date_range_start=${weeks[0]}&date_range_end=${weeks[3]}`;
    return { method: 'GET' as const, path: `/v3/businesses/engagement?business_ids=${ids.join(',')}${range}` };
  };
  return pairedWithRaw(() =>
    measure(`engagement, 20 businesses a request (${name})`, {
      url: base,
      headers: { authorization: `Bearer ${token}` },
      requests: [request()],
      setupClient: (client) => client.setRequests(Array.from({ length: 500 }, request)),
    }),
  );
}

interface ScoringFigures {
  dialect: string;
  businesses: number;
  loadSeconds: number;
  scoreSeconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  heapBeforeMb: number;
  heapPeakMb: number;
}

/** Runs bench/scoring.ts in its own process (its memory is then its own). */
function scoringRun(dialect: 'sqlite' | 'postgres', businesses: number, url = ''): Promise<ScoringFigures> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/scoring.ts'), dialect, url], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_SCORING_BUSINESSES: String(businesses) },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as ScoringFigures) : reject(new Error(`scoring run failed (${code}): ${err}`))));
  });
}

function scoringLines(runs: ScoringFigures[]): string[] {
  return [
    'engagement scoring (one week, every business North American; a process of its own; load = the activity JSON lines through the service):',
    '',
    '| database | businesses scored | load | scoring | RSS before → peak | heap before → peak |',
    '|---|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${r.businesses.toLocaleString('en-US')} | ${r.loadSeconds.toFixed(2)} s | ${r.scoreSeconds.toFixed(2)} s | ${r.rssBeforeMb} → ${r.rssPeakMb} MB | ${r.heapBeforeMb} → ${r.heapPeakMb} MB |`,
    ),
  ];
}

/** Program types one business can hold together (EP excludes BP): 125 businesses × 8 = 1,000 creations. */
const AD_TYPES = ['BP', 'CPC', 'RCA', 'CTA', 'SLIDESHOW', 'BH', 'VL', 'LOGO'];
const AD_JOBS = 1000;

interface AdvertisingFigures {
  database: string;
  submitSeconds: number;
  completedSeconds: number;
}

/**
 * Advertising: 1,000 creations sent by 10 concurrent clients, then the time until every job is
 * COMPLETED (the processing delay set to 0); then job-status polling beside raw node:http.
 * Answers the figures and the polling measurement.
 */
async function advertisingScenario(name: string, base: string): Promise<{ figures: AdvertisingFigures; polling: Figure[] }> {
  const businesses = generateDemoBusinesses(AD_JOBS / AD_TYPES.length, 777, [METRO]).map((b) => ({ ...b, specialties: 'Everything' }));
  await api(base, 'POST', '/admin/v1/businesses/import', ADMIN, businesses.map((b) => JSON.stringify(b)).join('\n'), 'application/x-ndjson');
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Ads bench', interfaces: ['advertising'] }));
  const credential = await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'basic' }));
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, businesses.map((b) => b.id).join('\n'), 'text/csv');
  const authorization = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
  const queue = businesses.flatMap((b) => AD_TYPES.map((type) => `business_id=${b.id}&program_name=${type}${type === 'CPC' ? '&budget=20000&is_autobid=true' : ''}`));
  const jobIds: string[] = [];
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let params = queue.shift(); params !== undefined; params = queue.shift()) {
        const response = await fetch(`${base}/v1/reseller/program/create?${params}`, { method: 'POST', headers: { authorization } });
        if (response.status !== 200) throw new Error(`create → ${response.status} ${await response.text()}`);
        jobIds.push(((await response.json()) as { job_id: string }).job_id);
      }
    }),
  );
  const submitted = Date.now();
  for (;;) {
    const open = await api(base, 'GET', '/admin/v1/advertising/jobs?status=PROCESSING&limit=1', ADMIN);
    if (open.jobs.length === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const completed = Date.now();
  const pollOptions = (ids: string[]): Parameters<typeof autocannon>[0] => {
    const statusRequest = () => ({ method: 'GET' as const, path: `/v1/reseller/status/${pick(ids)}` });
    return { url: base, headers: { authorization }, requests: [statusRequest()], setupClient: (client) => client.setRequests(Array.from({ length: 200 }, statusRequest)) };
  };
  const polling = await pairedWithRaw(() => measure(`advertising job status, COMPLETED (${name})`, pollOptions(jobIds)));
  // Jobs still PROCESSING (held by the operator): every poll reads the database (202).
  await api(base, 'PUT', '/admin/v1/advertising/settings', ADMIN, JSON.stringify({ hold_new_jobs: true }));
  const held: string[] = [];
  for (const b of businesses.slice(0, 100)) {
    const response = await fetch(`${base}/v1/reseller/program/create?business_id=${b.id}&program_name=PORTFOLIO`, { method: 'POST', headers: { authorization } });
    held.push(((await response.json()) as { job_id: string }).job_id);
  }
  const processing = await besideRaw(() => measure(`advertising job status, PROCESSING (${name})`, pollOptions(held)));
  return { figures: { database: name, submitSeconds: (submitted - started) / 1000, completedSeconds: (completed - started) / 1000 }, polling: [polling, processing] };
}

function advertisingLines(runs: AdvertisingFigures[]): string[] {
  return [
    `advertising: ${AD_JOBS.toLocaleString('en-US')} program creations from 10 concurrent clients (PBS_AD_JOB_DELAY_MS=0), time from the first request:`,
    '',
    '| database | all answered (job ids) | all COMPLETED |',
    '|---|---:|---:|',
    ...runs.map((r) => `| ${r.database} | ${r.submitSeconds.toFixed(2)} s | ${r.completedSeconds.toFixed(2)} s |`),
  ];
}

/**
 * Webhook delivery: a backlog of `WEBHOOK_MESSAGES` drained by one delivering process, each drain
 * between two bare loops. The first drain is the process's first work (cold: the JIT still warming
 * up); then `PAIRS` warm rounds, reported as the round with the median ratio: the running process
 * is paused (SIGSTOP) while another process writes the backlog, then resumed, as a deliverer meets
 * a burst. Then event→POST latency at a steady rate on the same process.
 */
async function webhookScenario(dataDir: string): Promise<WebhookFigures> {
  const receiver = await startReceiver();
  const dir = path.join(dataDir, 'webhooks');
  try {
    const sampleBody = JSON.stringify({ time: new Date().toISOString(), object: 'business', data: { id: 'x'.repeat(22), updates: [{ event_type: 'NEW_EVENT', event_id: 'e'.repeat(36), lead_id: 'l'.repeat(22), interaction_time: new Date().toISOString() }] } });
    const setup = await startPbs(dir, { PBS_TASKS: '0' });
    const business = await api(setup.url, 'POST', '/admin/v1/businesses', ADMIN, JSON.stringify({ name: 'Hooked', location: { city: 'Bench City', state: 'CA', country: 'US' }, timezone: 'America/Los_Angeles' }));
    const partner = await api(setup.url, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Hooks', interfaces: ['webhooks'] }));
    const key = (await api(setup.url, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' }))).api_key;
    await api(setup.url, 'PUT', `/admin/v1/partners/${partner.id}/webhook`, ADMIN, JSON.stringify({ url: receiver.url, client_id: 'bench' }));
    await api(setup.url, 'POST', `/admin/v1/partners/${partner.id}/webhook/verify`, ADMIN);
    await api(setup.url, 'PUT', `/admin/v1/partners/${partner.id}/businesses/${business.id}`, ADMIN);
    await api(setup.url, 'POST', '/v3/webhooks/whitelists/businesses/add', key, JSON.stringify({ business_ids: [business.id] }));
    await stop(setup);

    /** A backlog written by a process that does not deliver, while `deliverer` is paused or not yet started. */
    const writeBacklog = async () => {
      const writer = await startPbs(dir, { PBS_TASKS: '0' });
      let next = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (next++ < WEBHOOK_MESSAGES) await api(writer.url, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, ADMIN, '{}');
        }),
      );
      await stop(writer);
    };
    let drainConnections = 0;
    /** One drain between two bare loops: throughput from the first to the last arrival. */
    const round = async (release: () => Promise<void>) => {
      const bareLoopBefore = await bareLoop(receiver.url, WEBHOOK_MESSAGES, 64, 8, sampleBody);
      receiver.arrivals.clear();
      const connectionsBefore = receiver.connections();
      await release();
      while (receiver.arrivals.size < WEBHOOK_MESSAGES) await new Promise((r) => setTimeout(r, 20));
      drainConnections += receiver.connections() - connectionsBefore;
      const times = [...receiver.arrivals.values()];
      const delivered = (WEBHOOK_MESSAGES - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
      const bareLoopAfter = await bareLoop(receiver.url, WEBHOOK_MESSAGES, 64, 8, sampleBody);
      return { bare: (bareLoopBefore + bareLoopAfter) / 2, delivered };
    };

    let deliverer: Started | undefined;
    try {
      await writeBacklog();
      const cold = await round(async () => {
        deliverer = await startPbs(dir);
      });
      const rounds: Array<{ bare: number; delivered: number }> = [];
      for (let i = 0; i < PAIRS; i++) {
        deliverer!.child.kill('SIGSTOP');
        await writeBacklog();
        rounds.push(await round(async () => void deliverer!.child.kill('SIGCONT')));
      }

      // Latency: 1,000 events at about 200 per second, from the emitting request's start to arrival.
      const sent = new Map<string, number>();
      for (let i = 0; i < 1000; i++) {
        const started = Date.now();
        const r = await api(deliverer!.url, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, ADMIN, '{}');
        sent.set(r.message_id, started);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      while ([...sent.keys()].some((id) => !receiver.arrivals.has(id))) await new Promise((r) => setTimeout(r, 20));
      const latencies = [...sent.entries()].map(([id, at]) => receiver.arrivals.get(id)! - at);
      const database = await openDatabase({ sqlitePath: path.join(dir, 'pbs.sqlite') });
      const attempts = await database.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      await database.close();
      const ratio = (r: { bare: number; delivered: number }) => r.delivered / r.bare;
      const median = medianBy(rounds, ratio);
      return {
        bareLoopPerSecond: median.bare,
        deliveredPerSecond: median.delivered,
        roundRatios: rounds.map(ratio),
        coldBareLoopPerSecond: cold.bare,
        coldDeliveredPerSecond: cold.delivered,
        latencyP50: percentile(latencies, 50),
        latencyP99: percentile(latencies, 99),
        attemptsRecorded: Number(attempts.n),
        postsReceived: receiver.posts() - 2 * (PAIRS + 1) * WEBHOOK_MESSAGES, // minus the bare loops'
        drainConnections,
      };
    } finally {
      if (deliverer) await stop(deliverer);
    }
  } finally {
    await receiver.close();
  }
}

function webhookLines(w: WebhookFigures): string[] {
  return [
    `webhook delivery (SQLite, backlogs of ${WEBHOOK_MESSAGES.toLocaleString('en-US')} messages to a loopback receiver, 8 connections, 64 in flight; a running deliverer: the median of ${w.roundRatios.length} rounds: ${w.roundRatios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}):`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| bare undici POST loop (mean of runs before and after the drain) | ${Math.round(w.bareLoopPerSecond).toLocaleString('en-US')} msg/s |`,
    `| pbs delivery of a backlog by a running deliverer | ${Math.round(w.deliveredPerSecond).toLocaleString('en-US')} msg/s (${((w.deliveredPerSecond / w.bareLoopPerSecond) * 100).toFixed(1)} % of the bare loop) |`,
    `| the same by a just-started deliverer (its first work) | ${Math.round(w.coldDeliveredPerSecond).toLocaleString('en-US')} msg/s (${((w.coldDeliveredPerSecond / w.coldBareLoopPerSecond) * 100).toFixed(1)} % of ${Math.round(w.coldBareLoopPerSecond).toLocaleString('en-US')}) |`,
    `| connections the deliverer opened over the ${w.roundRatios.length + 1} drains | ${w.drainConnections.toLocaleString('en-US')} |`,
    `| event → POST latency at ~200 events/s | p50 ${w.latencyP50} ms, p99 ${w.latencyP99} ms |`,
    `| attempts recorded / POSTs received | ${w.attemptsRecorded.toLocaleString('en-US')} / ${w.postsReceived.toLocaleString('en-US')} |`,
  ];
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-bench-'));
  const raw = await start([path.join(ROOT, 'bench/raw-server.mjs')], { PORT: '0' });
  const figures: Figure[] = [];
  const dates = upcomingDates(20);
  let webhooks: WebhookFigures | undefined;
  const advertising: AdvertisingFigures[] = [];
  const scoring: ScoringFigures[] = [];
  let catalogue: CatalogueRun[] = [];
  const adSettings = { PBS_AD_JOB_DELAY_MS: '0', PBS_TASKS_POLL_MS: '20' };
  setRawUrl(`${raw.url}/`);
  try {

    const sqlite = await startPbs(dataDir);
    try {
      figures.push(await pairedWithRaw(() => measure('pbs GET /healthz', { url: `${sqlite.url}/healthz` })));
      if (wanted('hostile')) figures.push(...(await hostileBodiesScenario(sqlite.url)));
      if (wanted('openings') || wanted('search') || wanted('holds')) {
        const loadStart = Date.now();
        const metro = await loadMetro(sqlite.url, 10_000);
        process.stderr.write(`loaded 10,000 restaurants on SQLite in ${((Date.now() - loadStart) / 1000).toFixed(1)} s\n`);
        if (wanted('openings')) {
          figures.push(await pairedWithRaw(() => measure('openings, 1,000 restaurants (SQLite)', openingsOptions(sqlite.url, metro.key, metro.ids.slice(0, 1000), dates))));
        }
        if (wanted('search')) {
          const searchPath = `/v3/businesses/search?location=Bench%20City&reservation_date=${dates[3]}&reservation_time=19:00&reservation_covers=2&limit=20`;
          const searchAuth = { authorization: `Bearer ${metro.key}` };
          figures.push(await besideRaw(() => measure('reservation search, 10,000 in one metro (SQLite)', { url: sqlite.url + searchPath, headers: searchAuth }, 1)));
          figures.push(await besideRaw(() => measure('reservation search, 10,000 in one metro (SQLite)', { url: sqlite.url + searchPath, headers: searchAuth }, 10)));
          const plainPath = '/v3/businesses/search?location=Bench%20City&term=pizza&limit=20';
          figures.push(await besideRaw(() => measure('plain search, 10,000 in one metro (SQLite)', { url: sqlite.url + plainPath, headers: searchAuth }, 10)));
        }
        if (wanted('holds')) figures.push(await besideRaw(() => holdAndReserve('hold → reserve (SQLite)', sqlite.url, metro.key, metro.ids, dates)));
      }
    } finally {
      await stop(sqlite);
    }

    if (wanted('openings') || wanted('holds')) {
      await withPostgres(async (url) => {
        const postgres = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'pg') });
        try {
          const metro = await loadMetro(postgres.url, 1_000);
          if (wanted('openings')) figures.push(await pairedWithRaw(() => measure('openings, 1,000 restaurants (PostgreSQL)', openingsOptions(postgres.url, metro.key, metro.ids, dates))));
          if (wanted('holds')) figures.push(await besideRaw(() => holdAndReserve('hold → reserve (PostgreSQL)', postgres.url, metro.key, metro.ids, dates)));
        } finally {
          await stop(postgres);
        }
      });
    }
    if (wanted('advertising')) {
      const ads = await startPbs(path.join(dataDir, 'ads'), adSettings);
      try {
        const run = await advertisingScenario('SQLite', ads.url);
        advertising.push(run.figures);
        figures.push(...run.polling);
      } finally {
        await stop(ads);
      }
      await withPostgres(async (url) => {
        const ads = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'ads-pg'), ...adSettings });
        try {
          const run = await advertisingScenario('PostgreSQL', ads.url);
          advertising.push(run.figures);
          figures.push(...run.polling);
        } finally {
          await stop(ads);
        }
      });
    }
    if (wanted('waitlist')) {
      const line = await startPbs(path.join(dataDir, 'waitlist'));
      try {
        figures.push(...(await waitlistScenario('SQLite', line.url)));
      } finally {
        await stop(line);
      }
      await withPostgres(async (url) => {
        const line = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'waitlist-pg') });
        try {
          figures.push(...(await waitlistScenario('PostgreSQL', line.url)));
        } finally {
          await stop(line);
        }
      });
    }
    if (wanted('reviews') || wanted('engagement')) {
      const insights = await startPbs(path.join(dataDir, 'insights'));
      try {
        if (wanted('reviews')) figures.push(await reviewsScenario('SQLite', insights.url));
        if (wanted('engagement')) figures.push(await engagementScenario('SQLite', insights.url));
      } finally {
        await stop(insights);
      }
      await withPostgres(async (url) => {
        const insights = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'insights-pg') });
        try {
          if (wanted('reviews')) figures.push(await reviewsScenario('PostgreSQL', insights.url));
          if (wanted('engagement')) figures.push(await engagementScenario('PostgreSQL', insights.url));
        } finally {
          await stop(insights);
        }
      });
    }
    if (wanted('scoring')) {
      for (const businesses of SCORING_SIZES) {
        scoring.push(await scoringRun('sqlite', businesses));
        await withPostgres(async (url) => void scoring.push(await scoringRun('postgres', businesses, url)));
      }
    }
    if (wanted('catalogue')) {
      catalogue = await catalogueScenario(dataDir, dates, holdAndReserve);
      figures.push(...catalogue.flatMap((run) => run.figures));
    }
    if (wanted('scaleout') && PG_URL !== 'off') figures.push(...(await scaleOutScenario(dataDir, dates)));
    if (wanted('webhooks')) webhooks = await webhookScenario(dataDir);
  } finally {
    await stop(raw);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const lines = [
    `pbs benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'})`,
    `autocannon: ${DURATION} s per scenario after a 2 s warm-up; servers are separate processes on loopback;`,
    `each scenario is preceded by a raw node:http run (${CONNECTIONS} connections), its figure in "vs raw"; steal = CPU time the hypervisor took meanwhile`,
    '',
    '| scenario | connections | req/s | p50 ms | p99 ms | vs raw node:http req/s | steal | non-2xx | errors | |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...figures.map(row),
    ...(advertising.length > 0 ? ['', ...advertisingLines(advertising)] : []),
    ...(scoring.length > 0 ? ['', ...scoringLines(scoring)] : []),
    ...(catalogue.length > 0 ? ['', ...catalogueLines(catalogue)] : []),
    ...(webhooks ? ['', ...webhookLines(webhooks)] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
