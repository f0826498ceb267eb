/**
 * `npm run bench`: starts the servers it measures as separate processes on loopback, drives them
 * with autocannon and prints, per group of scenarios, a short table: each read path's server CPU
 * per request beside raw node:http answering the same bytes in the same run, req/s and its share
 * of raw node:http, latency and the CPU steal meanwhile. `npm run bench -- --write-doc` also
 * writes those tables into docs/benchmarks.md (bench/doc.ts).
 *
 * Options: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_PG_URL (PostgreSQL for the PostgreSQL scenarios; default the local test database,
 * BENCH_PG_URL=off skips them), BENCH_PAIRS (raw/scenario pairs for the ratio scenarios, default 3),
 * BENCH_ROUNDS (a read path's interleaved rounds, default 5),
 * BENCH_WEBHOOK_MESSAGES (default 5000), BENCH_ONLY (a comma list of openings, search, holds,
 * hostile, advertising, waitlist, reviews, engagement, requestlog, readiness, scoring, catalogue, scaleout,
 * webhooks, or `reads` for every read path: only those run, after /healthz). BENCH_SCORING_SIZES:
 * businesses of the scoring runs (default 10000,100000,1000000). BENCH_CATALOGUE_SIZES:
 * businesses of the catalogue-scale runs (default 1000,10000,100000; 1000000 is a country;
 * bench/catalogue.ts). BENCH_CPU_PROFILE=DIR: every pbs server writes a V8 CPU profile
 * (.cpuprofile) into DIR when it stops. BENCH_PERF=DIR: an on-CPU profile (Linux perf) of pbs
 * during each measurement, DIR/<scenario>.data (bench/on-cpu-profile.ts, bench/on-cpu-summary.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogueLines, catalogueScenario, type CatalogueRun } from './catalogue.js';
import { type WebhookFigures } from './webhooks.js';
import { hostileBodiesScenario } from './hostile.js';
import { renderSection, runStamp, type Section, writeDoc } from './doc.js';
import {
  besideRaw,
  CONNECTIONS,
  DURATION,
  type Figure,
  idleCpu,
  loadMetro,
  measure,
  pairedWithRaw,
  PG_URL,
  readPath,
  readPathLines,
  ROOT,
  row,
  setRawUrl,
  start,
  startPbs,
  stop,
  upcomingDates,
  withPostgres,
} from './harness.js';
import { openingsOptions, holdAndReserve } from './scenarios/bookings.js';
import { scaleOutScenario } from './scenarios/scale-out.js';
import { waitlistScenario } from './scenarios/waitlist.js';
import { reviewsScenario, engagementScenario } from './scenarios/reads.js';
import { type ScoringFigures, scoringRun, scoringLines } from './scenarios/scoring-runs.js';
import { type AdvertisingFigures, advertisingScenario, advertisingLines } from './scenarios/advertising.js';
import { webhookScenario, webhookLines } from './scenarios/webhook-delivery.js';
import { requestLogScenario, requestLogLines, type RequestLogFigures } from './scenarios/request-log.js';

/** Businesses of the engagement scoring runs (BENCH_SCORING_SIZES, a comma list): the growth up to a country. */
const SCORING_SIZES = (process.env.BENCH_SCORING_SIZES ?? process.env.BENCH_SCORING_BUSINESSES ?? '10000,100000,1000000')
  .split(',')
  .map(Number);

/** BENCH_ONLY=openings,webhooks runs /healthz and those groups of scenarios only. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((g) => g.trim())) : undefined;

/** The groups `reads` stands for: every read path judged by CPU per request beside raw node:http. */
const READ_GROUPS = ['openings', 'search', 'advertising', 'waitlist', 'reviews', 'engagement'];

const wanted = (
  group:
    | 'openings'
    | 'search'
    | 'holds'
    | 'webhooks'
    | 'advertising'
    | 'waitlist'
    | 'reviews'
    | 'engagement'
    | 'scaleout'
    | 'catalogue'
    | 'scoring'
    | 'hostile'
    | 'requestlog'
    | 'readiness',
) => !ONLY || ONLY.has(group) || (ONLY.has('reads') && READ_GROUPS.includes(group));

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-bench-'));
  const raw = await start([path.join(ROOT, 'bench/raw-server.mjs')], { PORT: '0' });
  const framework = await start([path.join(ROOT, 'bench/fastify-floor.mjs')], { PORT: '0' });
  /** The read paths (judged by CPU per request beside raw answering the same bytes). */
  const reads: Figure[] = [];
  let idle: { process: number; main: number } | undefined;
  /** Writes and everything else judged by req/s beside raw node:http. */
  const writes: Figure[] = [];
  const hostile: Figure[] = [];
  const scaleOut: Figure[] = [];
  const dates = upcomingDates(20);
  let webhooks: WebhookFigures | undefined;
  const advertising: AdvertisingFigures[] = [];
  const scoring: ScoringFigures[] = [];
  let catalogue: CatalogueRun[] = [];
  const requestLog: RequestLogFigures[] = [];
  const readiness: RequestLogFigures[] = [];
  const adSettings = { PBS_AD_JOB_DELAY_MS: '0', PBS_TASKS_POLL_MS: '20' };
  setRawUrl(`${raw.url}/`, `${framework.url}/`);
  try {
    const sqlite = await startPbs(dataDir);
    try {
      hostile.push(await pairedWithRaw(() => measure('pbs GET /healthz', { url: `${sqlite.url}/healthz` })));
      if (wanted('hostile')) hostile.push(...(await hostileBodiesScenario(sqlite.url)));
      if (wanted('openings') || wanted('search') || wanted('holds')) {
        const loadStart = Date.now();
        const metro = await loadMetro(sqlite.url, 10_000);
        process.stderr.write(`loaded 10,000 restaurants on SQLite in ${((Date.now() - loadStart) / 1000).toFixed(1)} s\n`);
        if (wanted('openings') && sqlite.child.pid !== undefined) {
          // Settled first: the import's own work (the catalogue's refresh, the tasks it queued) is not idling.
          await new Promise((resolve) => setTimeout(resolve, 5000));
          idle = await idleCpu(sqlite.child.pid);
        }
        if (wanted('openings'))
          reads.push(
            await readPath('openings, 1,000 restaurants (SQLite)', openingsOptions(sqlite.url, metro.key, metro.ids.slice(0, 1000), dates)),
          );
        if (wanted('search')) {
          const searchAuth = { authorization: `Bearer ${metro.key}` };
          const searchPath = `/v3/businesses/search?location=Bench%20City&reservation_date=${dates[3]}&reservation_time=19:00&reservation_covers=2&limit=20`;
          reads.push(
            await readPath('reservation search, 10,000 in one metro (SQLite)', { url: sqlite.url + searchPath, headers: searchAuth }, 10),
          );
          const plainPath = '/v3/businesses/search?location=Bench%20City&term=pizza&limit=20';
          reads.push(
            await readPath('plain search, 10,000 in one metro (SQLite)', { url: sqlite.url + plainPath, headers: searchAuth }, 10),
          );
        }
        if (wanted('holds'))
          writes.push(await besideRaw(() => holdAndReserve('hold → reserve (SQLite)', sqlite.url, metro.key, metro.ids, dates)));
      }
    } finally {
      await stop(sqlite);
    }

    if (wanted('openings') || wanted('holds')) {
      await withPostgres(async (url) => {
        const postgres = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'pg') });
        try {
          const metro = await loadMetro(postgres.url, 1_000);
          if (wanted('openings'))
            reads.push(
              await readPath('openings, 1,000 restaurants (PostgreSQL)', openingsOptions(postgres.url, metro.key, metro.ids, dates)),
            );
          if (wanted('holds'))
            writes.push(await besideRaw(() => holdAndReserve('hold → reserve (PostgreSQL)', postgres.url, metro.key, metro.ids, dates)));
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
        reads.push(...run.polling);
      } finally {
        await stop(ads);
      }
      await withPostgres(async (url) => {
        const ads = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'ads-pg'), ...adSettings });
        try {
          const run = await advertisingScenario('PostgreSQL', ads.url);
          advertising.push(run.figures);
          reads.push(...run.polling);
        } finally {
          await stop(ads);
        }
      });
    }
    if (wanted('waitlist')) {
      const line = await startPbs(path.join(dataDir, 'waitlist'));
      try {
        const [status, joins] = await waitlistScenario('SQLite', line.url);
        reads.push(status);
        writes.push(joins);
      } finally {
        await stop(line);
      }
      await withPostgres(async (url) => {
        const line = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'waitlist-pg') });
        try {
          const [status, joins] = await waitlistScenario('PostgreSQL', line.url);
          reads.push(status);
          writes.push(joins);
        } finally {
          await stop(line);
        }
      });
    }
    if (wanted('reviews') || wanted('engagement')) {
      const insights = await startPbs(path.join(dataDir, 'insights'));
      try {
        if (wanted('reviews')) reads.push(await reviewsScenario('SQLite', insights.url));
        if (wanted('engagement')) reads.push(await engagementScenario('SQLite', insights.url));
      } finally {
        await stop(insights);
      }
      await withPostgres(async (url) => {
        const insights = await startPbs(dataDir, { DATABASE_URL: url, PBS_DATA_DIR: path.join(dataDir, 'insights-pg') });
        try {
          if (wanted('reviews')) reads.push(await reviewsScenario('PostgreSQL', insights.url));
          if (wanted('engagement')) reads.push(await engagementScenario('PostgreSQL', insights.url));
        } finally {
          await stop(insights);
        }
      });
    }
    if (wanted('requestlog')) {
      requestLog.push(await requestLogScenario(dataDir, dates, 'SQLite'));
      // Each server on a database of its own (a schema each), as on SQLite.
      await withPostgres((onUrl) =>
        withPostgres(async (offUrl) => {
          requestLog.push(
            await requestLogScenario(dataDir, dates, 'PostgreSQL', {
              on: { DATABASE_URL: onUrl, PBS_DATA_DIR: path.join(dataDir, 'log-on-pg') },
              off: { DATABASE_URL: offUrl, PBS_DATA_DIR: path.join(dataDir, 'log-off-pg') },
            }),
          );
        }),
      );
    }
    if (wanted('readiness')) {
      readiness.push(await requestLogScenario(dataDir, dates, 'SQLite', undefined, 'readiness'));
      await withPostgres((onUrl) =>
        withPostgres(async (offUrl) => {
          readiness.push(
            await requestLogScenario(
              dataDir,
              dates,
              'PostgreSQL',
              {
                on: { DATABASE_URL: onUrl, PBS_DATA_DIR: path.join(dataDir, 'readiness-on-pg') },
                off: { DATABASE_URL: offUrl, PBS_DATA_DIR: path.join(dataDir, 'readiness-off-pg') },
              },
              'readiness',
            ),
          );
        }),
      );
    }
    if (wanted('scoring')) {
      for (const businesses of SCORING_SIZES) {
        scoring.push(await scoringRun('sqlite', businesses));
        await withPostgres(async (url) => void scoring.push(await scoringRun('postgres', businesses, url)));
      }
    }
    if (wanted('catalogue')) catalogue = await catalogueScenario(dataDir, dates, holdAndReserve);
    if (wanted('scaleout') && PG_URL !== 'off') scaleOut.push(...(await scaleOutScenario(dataDir, dates)));
    if (wanted('webhooks')) webhooks = await webhookScenario(dataDir);
  } finally {
    await stop(raw);
    await stop(framework);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const table = (figures: Figure[]) => [
    '| scenario | connections | req/s | p50 ms | p99 ms | vs raw node:http req/s | steal | non-2xx | errors | |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...figures.map(row),
  ];
  const sections: Section[] = [];
  if (reads.length > 0)
    sections.push({
      id: 'reads',
      about:
        'Each read path under 50 connections (search: 10) cycling through random requests, beside raw node:http answering a body of the mean size of its answers, in interleaved rounds (each server warmed once, the read path 4 s; then per round raw node:http’s 15 bytes, Fastify alone, the control, raw node:http answering the same bytes and the read path, the last two back to back, the next round in reverse order); the round with the median CPU ratio is shown, with every round’s range. Fastify alone (bench/fastify-floor.mjs: the framework with nothing of pbs) answers the same bytes in each round: the floor of the stack itself, and what pbs adds above it. The control is raw node:http answering the same bytes after spinning as long as its own CPU a request: twice its work, as this machine measures it.',
      lines: [
        ...readPathLines(reads),
        ...(idle
          ? [
              '',
              `An idle server (SQLite, the 10,000 restaurants loaded, no traffic for 10 s): ${idle.process.toFixed(1)} ms of CPU a second, ${idle.main.toFixed(1)} of them on the main thread.`,
            ]
          : []),
      ],
    });
  if (requestLog.length > 0)
    sections.push({
      id: 'requestlog',
      about:
        "Openings of 1,000 restaurants on two servers alike but for PBS_REQUEST_LOG, in alternating turns. The writer is a thread of its own at the idle scheduling class (ADR 0010); what it may cost the event loop is the main thread's CPU per request. Target: at most +10 %. The control is the log-off server beside a busy loop at the idle class that does nothing of pbs's: what any thread on the other vCPU costs the event loop on this machine.",
      lines: requestLogLines(requestLog),
    });
  if (readiness.length > 0)
    sections.push({
      id: 'readiness',
      about:
        "Openings of 1,000 restaurants on two servers alike, both with the request log, but for PBS_READINESS (docs/readiness.md): the milestone tracking the log's writer does in each batch's transaction, in alternating turns. Its cost to the event loop is the main thread's CPU per request (target: at most +10 %); the writer thread's own is in the whole process's.",
      lines: requestLogLines(readiness),
    });
  if (catalogue.length > 0)
    sections.push({
      id: 'catalogue',
      about:
        'A fresh server and database per size; up to 100,000 every business is a reservable restaurant (10,000 per metro); at 1,000,000 (a country) 100,000 of them are, in ten metros, and 900,000 are other businesses in ninety more. Businesses and settings go in through the operator import API as one streamed request each; the search answers are ~31 kB, so each is judged beside raw node:http answering as many bytes.',
      lines: catalogueLines(catalogue),
    });
  if (writes.length > 0)
    sections.push({
      id: 'writes',
      about: 'Each beside a raw node:http run just before it; hold → reserve counts pairs (a hold, then the reservation with its id).',
      lines: table(writes),
    });
  if (advertising.length > 0) sections.push({ id: 'advertising', about: '', lines: advertisingLines(advertising) });
  if (scoring.length > 0) sections.push({ id: 'scoring', about: '', lines: scoringLines(scoring) });
  if (webhooks) sections.push({ id: 'webhooks', about: '', lines: webhookLines(webhooks) });
  sections.push({
    id: 'hostile',
    about: 'The floor of any request through pbs, and what 8 clients sending 0.8 MB of nested JSON each do to it (goal: p99 < 50 ms).',
    lines: table(hostile),
  });
  if (scaleOut.length > 0)
    sections.push({
      id: 'scaleout',
      about:
        'pbs serve as one process and with PBS_PROCESSES=2; no table double-booked afterwards. On 2 cores a second API process has no core of its own (docs/scaling.md).',
      lines: table(scaleOut),
    });
  const machine = `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${DURATION} s a measurement after a 2 s warm-up, ${CONNECTIONS} connections unless said`;
  const stamp = runStamp(machine);
  process.stdout.write(`${sections.map((section) => renderSection(section, stamp)).join('\n\n')}\n`);
  if (process.argv.includes('--write-doc')) {
    // /healthz is measured by every run; its section is written only by a run of the hostile group.
    writeDoc(
      sections.filter((section) => section.id !== 'hostile' || wanted('hostile')),
      stamp,
    );
    process.stderr.write('wrote docs/benchmarks.md\n');
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
