import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DatabaseAvailability, DatabaseUnavailableError, isOutage, type AvailabilityState } from '../../src/platform/db/availability.js';
import { apiError } from '../../src/platform/errors.js';
import { openTestDatabase } from '../support/harness.js';
import { eventually } from '../support/wait.js';

/** Issue 39 §1: what pbs takes for its database being away, and how it finds out it is back. */
describe('database availability', () => {
  it('tells an outage from a statement that was wrong', () => {
    for (const outage of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('could not extend file'), { code: '53100' }),
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new DatabaseUnavailableError('down'),
    ])
      expect(isOutage(outage), outage.message).toBe(true);
    for (const fault of [
      Object.assign(new Error('duplicate key value'), { code: '23505' }),
      Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      Object.assign(new Error('syntax error'), { code: '42601' }),
      apiError('HOLD_SLOT_NOT_AVAILABLE'),
      new TypeError('x is undefined'),
      'a string',
    ])
      expect(isOutage(fault), String(fault)).toBe(false);
  });

  it('suspects on an outage, goes down when the probe fails, refuses meanwhile, and comes back by itself', async () => {
    let reachable = false;
    const states: AvailabilityState[] = [];
    const availability = new DatabaseAvailability({
      probe: async () => {
        if (!reachable) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      },
      probeEveryMs: 10,
    });
    availability.onChange((state) => states.push(state));
    try {
      expect(availability.report(Object.assign(new Error('duplicate'), { code: '23505' }))).toBe(false);
      expect(availability.state).toBe('up');
      availability.assertUsable();

      expect(availability.report(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
      expect(availability.state).toBe('suspect');
      // Still asked while suspect: one failure may have been one connection.
      availability.assertUsable();
      await eventually(
        () => availability.state,
        (state) => state === 'down',
        'the failed probe',
      );
      expect(() => availability.assertUsable()).toThrow(DatabaseUnavailableError);
      expect(availability.reason).toContain('ECONNREFUSED');

      reachable = true;
      await eventually(
        () => availability.state,
        (state) => state === 'up',
        'a probe that succeeds',
      );
      availability.assertUsable();
      expect(states).toEqual(['suspect', 'down', 'up']);
    } finally {
      availability.close();
    }
  });

  it('lets a probe that succeeds at once clear a suspicion without going down', async () => {
    const states: AvailabilityState[] = [];
    const availability = new DatabaseAvailability({ probe: async () => {}, probeEveryMs: 10 });
    availability.onChange((state) => states.push(state));
    try {
      availability.report(new Error('Connection terminated unexpectedly'));
      await eventually(
        () => availability.state,
        (state) => state === 'up',
        'the probe',
      );
      expect(states).toEqual(['suspect', 'up']);
    } finally {
      availability.close();
    }
  });
});

describe('a PostgreSQL connection ended by the server', () => {
  it('fails the transaction it was in, and the process lives on and uses the database again', async () => {
    const database = await openTestDatabase('postgres');
    const other = await openTestDatabase('postgres');
    try {
      // Between two statements of a transaction, as a restart or a failover ends it: the client is
      // checked out and has no query under way, so the error arrives as an event. Unheard, that
      // event ended the process.
      const noticed = new Promise<void>((resolve) => {
        const stop = database.availability.onChange((state) => {
          if (state !== 'suspect') return;
          stop();
          resolve();
        });
      });
      const failed = database.transact(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await sql`select pg_terminate_backend(${rows[0].pid})`.execute(other.db);
        // The server's message arrives while nothing is asked of the connection.
        await noticed;
        await sql`select 1`.execute(trx);
      });
      await expect(failed).rejects.toSatisfy(isOutage);
      await eventually(
        () => database.availability.state,
        (state) => state === 'up',
        'the probe finding the server',
      );
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await other.drop();
      await database.drop();
    }
  });
});
