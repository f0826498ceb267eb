import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tables } from '../../src/platform/db/database.js';
import { call, createPartner, startPbs, T0, type Harness } from '../support/harness.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

const DAY = '2031-05-07';
const AT_19 = Date.parse('2031-05-08T02:00:00Z'); // 19:00 in San Francisco on DAY

/**
 * PostgreSQL books in one statement that writes only if the restaurant's booking version is the
 * one its snapshot read. These tests commit another booking between that statement's snapshot and
 * its write (the statement waits for the other transaction's lock meanwhile) and check that the
 * stale decision is never written and the booking is decided again under the lock.
 */
describe('optimistic booking on postgres', () => {
  let h: Harness;
  let key: string;
  let partnerId: string;
  let biz: { id: string };
  let n = 0;

  beforeAll(async () => {
    h = await startPbs('postgres', { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    const partner = await createPartner(h.url, ['reservations']);
    key = partner.apiKey.api_key;
    partnerId = partner.partner.id;
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    h.clock.set(T0);
    // One table for parties of up to 4, so two parties of 2 at 19:00 compete for it.
    biz = await createRestaurant(h.url, { tables: [{ name: 'only', min_party: 1, max_party: 4 }] }, `Race ${++n}`);
    expect((await hold(h.url, key, biz.id, { date: DAY, time: '17:00', covers: '2', unique_id: `warm-${n}` })).status).toBe(200);
  });

  /** Bookings that lost their optimistic write and ran again under the lock, so far. */
  const retries = async () => Number(/^pbs_booking_retries_total (\d+)$/m.exec((await call(h.url, 'GET', '/metrics')).text)![1]);
  const version = async () =>
    (await h.database.db.selectFrom('booking_versions').select('version').where('business_id', '=', biz.id).executeTakeFirstOrThrow())
      .version;
  const tableId = async () =>
    (await h.database.db.selectFrom('restaurant_tables').select('id').where('business_id', '=', biz.id).executeTakeFirstOrThrow()).id;

  /**
   * Runs `change` as another process would book: in a transaction that bumps the restaurant's
   * version; starts `request` once that transaction holds the version row, and commits only when
   * `request`'s statement is waiting for it (so the statement's snapshot predates the commit).
   */
  async function commitDuring<T>(change: (trx: Transaction<Tables>) => Promise<void>, request: () => Promise<T>): Promise<T> {
    let pending: Promise<T> | undefined;
    await h.database.db.transaction().execute(async (trx) => {
      await sql`update booking_versions set version = version + 1 where business_id = ${biz.id}`.execute(trx);
      await change(trx);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      pending = request();
      for (let i = 0; ; i++) {
        const waiting = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where ${rows[0].pid} = any(pg_blocking_pids(pid))`.execute(h.database.db);
        if (waiting.rows[0].n > 0) break;
        if (i > 400) throw new Error('the booking statement never waited for the lock');
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    return pending!;
  }

  const otherHold = async (trx: Transaction<Tables>, id: string) => {
    await trx
      .insertInto('holds')
      .values({
        id,
        business_id: biz.id,
        partner_id: partnerId,
        table_id: await tableId(),
        unique_id: 'elsewhere',
        date: DAY,
        time: '19:00',
        covers: 2,
        start_at: AT_19,
        end_at: AT_19 + 90 * 60_000,
        expires_at: T0 + 5 * 60_000,
        status: 'active',
        created_at: T0,
      })
      .execute();
  };

  it('never places a hold on a table taken by a booking that committed after its snapshot', async () => {
    const [before, retriedBefore] = [await version(), await retries()];
    const r = await commitDuring(
      (trx) => otherHold(trx, 'OtherProcessHold000001'),
      () => hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'late' }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.error.code).toBe('HOLD_SLOT_NOT_AVAILABLE');
    const live = await h.database.db
      .selectFrom('holds')
      .select('id')
      .where('business_id', '=', biz.id)
      .where('time', '=', '19:00')
      .execute();
    expect(live.map((x) => x.id)).toEqual(['OtherProcessHold000001']);
    expect(await version()).toBe(before + 1); // only the other booking's bump; the refused one wrote nothing
    expect(await retries()).toBe(retriedBefore + 1);
  });

  it('books under the lock when the booking that came in between took nothing it needs', async () => {
    const [before, retriedBefore] = [await version(), await retries()];
    const r = await commitDuring(
      async (trx) => {
        await sql`update holds set status = 'released' where business_id = ${biz.id} and time = '17:00'`.execute(trx);
      },
      () => hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'patient' }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await version()).toBe(before + 2);
    expect(await retries()).toBe(retriedBefore + 1);
    const placed = await h.database.db.selectFrom('holds').select('status').where('id', '=', r.body.hold_id).executeTakeFirstOrThrow();
    expect(placed.status).toBe('active');
  });

  it('never turns a hold into a reservation on a table taken after its snapshot', async () => {
    const quiet = await retries();
    const held = await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'holder' });
    expect(held.status).toBe(200);
    expect(await retries()).toBe(quiet); // uncontended: won at once (a restaurant has its version row from the start)
    const r = await commitDuring(
      async (trx) => {
        // Another process's reservation on the same table (as if it had ignored the hold).
        await trx
          .insertInto('reservations')
          .values({
            id: '00000000-0000-4000-8000-000000000001',
            business_id: biz.id,
            partner_id: partnerId,
            table_id: await tableId(),
            hold_id: null,
            unique_id: 'elsewhere',
            date: DAY,
            time: '19:00',
            covers: 2,
            start_at: AT_19,
            end_at: AT_19 + 90 * 60_000,
            first_name: 'O',
            last_name: 'T',
            phone: '1',
            email: 'o@example.com',
            notes: null,
            status: 'active',
            canceled_by: null,
            created_at: T0,
            canceled_at: null,
          })
          .execute();
      },
      () => reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'holder', hold_id: held.body.hold_id }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.error.code).toBe('RESERVATION_SLOT_NO_LONGER_AVAILABLE');
    const stillHeld = await h.database.db
      .selectFrom('holds')
      .select('status')
      .where('id', '=', held.body.hold_id)
      .executeTakeFirstOrThrow();
    expect(stillHeld.status).toBe('active');
    const events = await h.database.db.selectFrom('domain_events').select('id').where('business_id', '=', biz.id).execute();
    expect(events).toHaveLength(0);
  });

  it('reserves under the lock when the booking that came in between took nothing it needs', async () => {
    const held = await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'holder' });
    const retriedBefore = await retries();
    const r = await commitDuring(
      async () => {},
      () => reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'holder', hold_id: held.body.hold_id }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const booked = await h.database.db
      .selectFrom('reservations')
      .select(['hold_id', 'status'])
      .where('id', '=', r.body.reservation_id)
      .executeTakeFirstOrThrow();
    expect(booked).toEqual({ hold_id: held.body.hold_id, status: 'active' });
    const events = await h.database.db.selectFrom('domain_events').select('type').where('business_id', '=', biz.id).execute();
    expect(events).toEqual([{ type: 'RESERVATION_CREATED_EVENT' }]);
    expect(await retries()).toBe(retriedBefore + 1);
  });
});
