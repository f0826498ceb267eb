/** Openings and hold → reserve: the booking path under load (a scenario of `npm run bench`, run by bench/run.ts). */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { CONNECTIONS, DURATION, figureOf, type Figure, pick, times, withSteal } from '../harness.js';

/** Requests each openings connection cycles through; ×50 connections, 50,000 random (restaurant, date, time). */
export const OPENINGS_REQUESTS_PER_CONNECTION = 1000;

/**
 * Random openings requests, built before the clock starts: each connection gets its own list of
 * random restaurants, dates and times and cycles through it. Building each request as it is sent
 * (autocannon's `setupRequest`) copies autocannon's whole options object twice per request; on
 * two cores shared with the server that cost comes out of the server's share, and the raw
 * node:http baseline (one fixed request) does not pay it.
 */
export function openingsOptions(base: string, key: string, ids: string[], dates: string[]): Parameters<typeof autocannon>[0] {
  const randomRequest = () => ({
    method: 'GET' as const,
    path: `/v3/bookings/${pick(ids)}/openings?date=${pick(dates)}&time=${pick(times)}&covers=2`,
  });
  return {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    requests: [randomRequest()],
    setupClient: (client) => client.setRequests(Array.from({ length: OPENINGS_REQUESTS_PER_CONNECTION }, randomRequest)),
  };
}

/** Each connection loops: hold a random slot, then reserve it with the hold id. */
export async function holdAndReserve(name: string, base: string, key: string, ids: string[], dates: string[]): Promise<Figure> {
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
    ...figureOf(name, r, CONNECTIONS, stealPercent),
    extra: `${Math.round(perSecond).toLocaleString('en-US')} hold+reserve/s`,
  };
}

/** Pairs of active reservations of one table whose times overlap: a double booking. */
export async function overbookedSlots(url: string): Promise<number> {
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
