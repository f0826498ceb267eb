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
 * runs (default 1000,10000,100000; bench/catalogue.ts). BENCH_CPU_PROFILE=DIR: every pbs server
 * writes a V8 CPU profile (.cpuprofile) into DIR when it stops.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogueLines, catalogueScenario, type CatalogueRun } from './catalogue.js';
import { type WebhookFigures } from './webhooks.js';
import { hostileBodiesScenario } from './hostile.js';
import {
  besideRaw,
  CONNECTIONS,
  DURATION,
  type Figure,
  loadMetro,
  measure,
  pairedWithRaw,
  PG_URL,
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
    | 'requestlog',
) => !ONLY || ONLY.has(group);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-bench-'));
  const raw = await start([path.join(ROOT, 'bench/raw-server.mjs')], { PORT: '0' });
  const figures: Figure[] = [];
  const dates = upcomingDates(20);
  let webhooks: WebhookFigures | undefined;
  const advertising: AdvertisingFigures[] = [];
  const scoring: ScoringFigures[] = [];
  let catalogue: CatalogueRun[] = [];
  const requestLog: RequestLogFigures[] = [];
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
          figures.push(
            await pairedWithRaw(() =>
              measure('openings, 1,000 restaurants (SQLite)', openingsOptions(sqlite.url, metro.key, metro.ids.slice(0, 1000), dates)),
            ),
          );
        }
        if (wanted('search')) {
          const searchPath = `/v3/businesses/search?location=Bench%20City&reservation_date=${dates[3]}&reservation_time=19:00&reservation_covers=2&limit=20`;
          const searchAuth = { authorization: `Bearer ${metro.key}` };
          figures.push(
            await besideRaw(() =>
              measure('reservation search, 10,000 in one metro (SQLite)', { url: sqlite.url + searchPath, headers: searchAuth }, 1),
            ),
          );
          figures.push(
            await besideRaw(() =>
              measure('reservation search, 10,000 in one metro (SQLite)', { url: sqlite.url + searchPath, headers: searchAuth }, 10),
            ),
          );
          const plainPath = '/v3/businesses/search?location=Bench%20City&term=pizza&limit=20';
          figures.push(
            await besideRaw(() =>
              measure('plain search, 10,000 in one metro (SQLite)', { url: sqlite.url + plainPath, headers: searchAuth }, 10),
            ),
          );
        }
        if (wanted('holds'))
          figures.push(await besideRaw(() => holdAndReserve('hold → reserve (SQLite)', sqlite.url, metro.key, metro.ids, dates)));
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
            figures.push(
              await pairedWithRaw(() =>
                measure('openings, 1,000 restaurants (PostgreSQL)', openingsOptions(postgres.url, metro.key, metro.ids, dates)),
              ),
            );
          if (wanted('holds'))
            figures.push(await besideRaw(() => holdAndReserve('hold → reserve (PostgreSQL)', postgres.url, metro.key, metro.ids, dates)));
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
    if (wanted('requestlog')) {
      const sqliteRun = await requestLogScenario(dataDir, dates, 'SQLite');
      figures.push(...sqliteRun.figures);
      requestLog.push(sqliteRun.result);
      // Each server on a database of its own (a schema each), as on SQLite.
      await withPostgres((onUrl) =>
        withPostgres(async (offUrl) => {
          const pgRun = await requestLogScenario(dataDir, dates, 'PostgreSQL', {
            on: { DATABASE_URL: onUrl, PBS_DATA_DIR: path.join(dataDir, 'log-on-pg') },
            off: { DATABASE_URL: offUrl, PBS_DATA_DIR: path.join(dataDir, 'log-off-pg') },
          });
          figures.push(...pgRun.figures);
          requestLog.push(pgRun.result);
        }),
      );
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
    ...(requestLog.length > 0 ? ['', ...requestLogLines(requestLog)] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
