/** Scale-out on PostgreSQL: one and two API processes on one port (a scenario of `npm run bench`, run by bench/run.ts). */
import http from 'node:http';
import path from 'node:path';
import { type Figure, loadMetro, measure, startPbs, stop, withPostgres } from '../harness.js';
import { openingsOptions, holdAndReserve, overbookedSlots } from './bookings.js';

export const ALL_DAY = [{ hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359' })) }];

/**
 * Scale-out on PostgreSQL: the same reads (openings of 1,000 restaurants) and writes (hold →
 * reserve) against `pbs serve` as one process and as a cluster of N API processes sharing the
 * port (PBS_PROCESSES=N, plus the worker process), each on a fresh schema. Afterwards no table
 * may hold two active reservations whose times overlap.
 */
export async function scaleOutScenario(dataDir: string, dates: string[]): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const processes of [1, 2]) {
    await withPostgres(async (url) => {
      const server = await startPbs(dataDir, {
        DATABASE_URL: url,
        PBS_DATA_DIR: path.join(dataDir, `scale-${processes}`),
        PBS_PROCESSES: String(processes),
      });
      try {
        const metro = await loadMetro(server.url, 1_000);
        const label = `${processes} API process${processes > 1 ? 'es' : ''}`;
        figures.push(
          await measure(
            `scale-out: openings, 1,000 restaurants (PostgreSQL, ${label})`,
            openingsOptions(server.url, metro.key, metro.ids, dates),
          ),
        );
        const retriesBefore = await counterOverProcesses(server.url, 'pbs_booking_retries_total', processes);
        figures.push(await holdAndReserve(`scale-out: hold → reserve (PostgreSQL, ${label})`, server.url, metro.key, metro.ids, dates));
        const retries = (await counterOverProcesses(server.url, 'pbs_booking_retries_total', processes)) - retriesBefore;
        const overbooked = await overbookedSlots(url);
        if (overbooked > 0) throw new Error(`${overbooked} pairs of overlapping reservations of one table with ${label}`);
        figures[figures.length - 1].extra +=
          `; ${retries.toLocaleString('en-US')} decided again under the restaurant lock; no table double-booked`;
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
export async function counterOverProcesses(base: string, name: string, processes: number): Promise<number> {
  const byPid = new Map<string, number>();
  for (let i = 0; i < processes * 10 && byPid.size < processes; i++) {
    const text = await new Promise<string>((resolve, reject) => {
      http
        .get(`${base}/metrics`, { agent: false }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    const pid = /^pbs_process_info\{pid="(\d+)"/m.exec(text)?.[1] ?? `unknown-${i}`;
    byPid.set(pid, Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0));
  }
  return [...byPid.values()].reduce((sum, value) => sum + value, 0);
}
