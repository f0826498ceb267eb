/**
 * Engagement scoring at a country's scale, each size in its own process (bench/scoring.ts) (a scenario
 * of `npm run bench`, run by bench/run.ts).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../harness.js';

export interface ScoringFigures {
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
export function scoringRun(dialect: 'sqlite' | 'postgres', businesses: number, url = ''): Promise<ScoringFigures> {
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
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!) as ScoringFigures)
        : reject(new Error(`scoring run failed (${code}): ${err}`)),
    );
  });
}

export function scoringLines(runs: ScoringFigures[]): string[] {
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
