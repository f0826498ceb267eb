/**
 * Engagement scoring of one week of 100,000 North American businesses (BENCH_SCORING_BUSINESSES:
 * a country's 1,000,000), in a process of its own so
 * its memory figures are its own: `tsx bench/scoring.ts sqlite|postgres [DATABASE_URL]`. Prints
 * one JSON line of figures (run.ts reports them). Businesses are written straight into their
 * table (the bench measures the load of activity and the scoring, not the business import).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPbs } from '../src/app.js';
import { seededRandom } from '../src/demo/demo-dataset.js';
import { ACTIVITY_FIELDS } from '../src/engagement/scoring.js';
import { loadConfig } from '../src/platform/config.js';

const BUSINESSES = Number(process.env.BENCH_SCORING_BUSINESSES ?? 100_000);
const WEEK = '2031-04-28';
const LOAD_BATCH = 100_000;
const COUNTRIES = ['US', 'US', 'US', 'US', 'CA', 'MX'];

async function main() {
  const [dialect, databaseUrl] = process.argv.slice(2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-scoring-'));
  const config = loadConfig({
    PBS_DATA_DIR: dataDir,
    PBS_LOG_LEVEL: 'warn',
    PBS_TASKS: '0',
    PBS_SEED_DEMO: '0',
    PBS_ADMIN_TOKEN: 'bench',
    ...(dialect === 'postgres' ? { DATABASE_URL: databaseUrl } : {}),
  });
  const pbs = await createPbs(config, { issueAdminToken: false });
  try {
    const db = pbs.ctx.database.db;
    const now = Date.now();
    for (let i = 0; i < BUSINESSES; i += 1000) {
      const rows = [];
      for (let j = i; j < Math.min(i + 1000, BUSINESSES); j++) {
        const id = `bench-business-${String(j).padStart(7, '0')}`;
        rows.push({
          id,
          alias: id,
          name: id,
          city: 'Bench',
          state: 'CA',
          zip_code: '94103',
          country: COUNTRIES[j % COUNTRIES.length],
          latitude: null,
          longitude: null,
          rating: 4,
          review_count: 0,
          price: null,
          is_closed: 0,
          timezone: 'America/Los_Angeles',
          record: '{}',
          phone: '',
          created_at: now,
          updated_at: now,
        });
      }
      await db.insertInto('businesses').values(rows).execute();
    }
    const random = seededRandom(2031);
    const count = (scale: number) => (random() < 0.25 ? 0 : Math.floor(random() ** 3 * scale));
    // Loaded 100,000 lines at a time, as the CLI sends a large file: the load is not what is measured.
    let loadSeconds = 0;
    for (let i = 0; i < BUSINESSES; i += LOAD_BATCH) {
      const lines: string[] = [];
      for (let j = i; j < Math.min(i + LOAD_BATCH, BUSINESSES); j++) {
        const activity: Record<string, unknown> = { business_id: `bench-business-${String(j).padStart(7, '0')}`, week: WEEK };
        for (const field of ACTIVITY_FIELDS) activity[field] = count(field === 'page_views' ? 5000 : 200);
        lines.push(JSON.stringify(activity));
      }
      const loadStart = performance.now();
      await pbs.services.engagement.importJsonLines(lines.join('\n'), { maxLines: Number.MAX_SAFE_INTEGER });
      loadSeconds += (performance.now() - loadStart) / 1000;
    }

    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 10);
    const scoreStart = performance.now();
    const summary = await pbs.services.engagement.scoreWeek(WEEK);
    const scoreSeconds = (performance.now() - scoreStart) / 1000;
    clearInterval(sampler);
    const after = process.memoryUsage();
    peakRss = Math.max(peakRss, after.rss);
    peakHeap = Math.max(peakHeap, after.heapUsed);
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    process.stdout.write(
      `${JSON.stringify({
        dialect,
        businesses: summary.businesses_scored,
        loadSeconds,
        scoreSeconds,
        rssBeforeMb: mb(before.rss),
        rssPeakMb: mb(peakRss),
        heapBeforeMb: mb(before.heapUsed),
        heapPeakMb: mb(peakHeap),
      })}\n`,
    );
  } finally {
    await pbs.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
