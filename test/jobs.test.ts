import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../src/platform/clock.js';
import { exponentialBackoff, JobRunner } from '../src/platform/jobs/job-runner.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createPbs, foundationMigrations } from '../src/app.js';
import { SettingsStore } from '../src/platform/settings.js';
import { admin, dialects, openTestDatabase, startPbs, T0, testConfig, type Harness, type TestDatabase } from './support/harness.js';

const runnerOptions = { pollMs: 20, batchSize: 10, leaseMs: 60_000 };

describe.each(dialects)('job runner on %s', (dialect) => {
  let database: TestDatabase;
  let clock: ControllableClock;

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    await migrateToLatest(database, foundationMigrations);
    clock = new ControllableClock({ frozenAtMs: T0 });
  });
  afterAll(() => database.drop());

  it('writes jobs in the transaction of the change: a rollback leaves no job behind', async () => {
    const runner = new JobRunner(database, clock, runnerOptions);
    runner.register('tx.test', async () => {});
    await database.db.transaction().execute(async (trx) => {
      await new SettingsStore(trx).set('tx-commit', '1');
      await runner.enqueue(trx, 'tx.test', { n: 1 }, { id: 'job-commit' });
    });
    await expect(
      database.db.transaction().execute(async (trx) => {
        await new SettingsStore(trx).set('tx-rollback', '1');
        await runner.enqueue(trx, 'tx.test', { n: 2 }, { id: 'job-rollback' });
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(await runner.get('job-commit')).toBeDefined();
    expect(await runner.get('job-rollback')).toBeUndefined();
    expect(await new SettingsStore(database.db).get('tx-rollback')).toBeUndefined();
    expect(await runner.runDue()).toBe(1);
    expect((await runner.get('job-commit'))!.state).toBe('succeeded');
  });

  it('runs a job only when due by the clock', async () => {
    const runner = new JobRunner(database, clock, runnerOptions);
    const seen: unknown[] = [];
    runner.register('later.test', async (payload) => {
      seen.push(payload);
    });
    await runner.enqueue(database.db, 'later.test', { hello: 'world' }, { runAt: clock.now() + 60_000 });
    expect(await runner.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await runner.runDue()).toBe(1);
    expect(seen).toEqual([{ hello: 'world' }]);
  });

  it('retries a failing job with backoff and then marks it dead, visibly', async () => {
    const runner = new JobRunner(database, clock, runnerOptions);
    let calls = 0;
    runner.register(
      'flaky.test',
      async () => {
        calls++;
        throw new Error(`failure ${calls}`);
      },
      { maxAttempts: 3, backoffMs: exponentialBackoff(1000, 60_000, 0) },
    );
    const id = await runner.enqueue(database.db, 'flaky.test', {});
    expect(await runner.runDue()).toBe(1);
    let job = (await runner.get(id))!;
    expect(job).toMatchObject({ state: 'pending', attempts: 1, last_error: 'failure 1' });
    expect(job.run_at).toBe(clock.now() + 1000);
    expect(await runner.runDue()).toBe(0); // not due yet
    clock.advance(1000);
    expect(await runner.runDue()).toBe(1);
    job = (await runner.get(id))!;
    expect(job.run_at).toBe(clock.now() + 2000);
    clock.advance(2000);
    expect(await runner.runDue()).toBe(1);
    job = (await runner.get(id))!;
    expect(job).toMatchObject({ state: 'dead', attempts: 3, last_error: 'failure 3' });
    expect(job.finished_at).toBe(clock.now());
    clock.advance(3600_000);
    expect(await runner.runDue()).toBe(0);
    expect(calls).toBe(3);

    const dead = await runner.list({ state: 'dead', type: 'flaky.test' });
    expect(dead.map((j) => j.id)).toContain(id);
    const revived = await runner.retry(id);
    expect(revived).toMatchObject({ state: 'pending', attempts: 0 });
  });

  it('takes over a job whose worker died (lease expired)', async () => {
    const runner = new JobRunner(database, clock, { ...runnerOptions, leaseMs: 1 });
    const done: string[] = [];
    runner.register('lease.test', async (payload: { id: string }) => {
      done.push(payload.id);
    });
    const id = await runner.enqueue(database.db, 'lease.test', { id: 'x' });
    // A worker that claimed the job and vanished.
    await database.db.updateTable('jobs').set({ state: 'running', locked_by: 'ghost', locked_until: Date.now() - 1 }).where('id', '=', id).execute();
    expect(await runner.runDue()).toBe(1);
    expect(done).toEqual(['x']);
    expect((await runner.get(id))!.state).toBe('succeeded');
  });

  it('lets several runners share the queue without running a job twice', async () => {
    const executions = new Map<number, number>();
    const runners = [0, 1, 2].map(() => {
      const r = new JobRunner(database, clock, { ...runnerOptions, batchSize: 5 });
      r.register('shared.test', async (payload: { n: number }) => {
        executions.set(payload.n, (executions.get(payload.n) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 1));
      });
      return r;
    });
    for (let n = 0; n < 60; n++) await runners[0].enqueue(database.db, 'shared.test', { n });
    await Promise.all(runners.map((r) => r.runDue()));
    expect(executions.size).toBe(60);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
  });

  it('runs jobs in the background once started, woken by enqueue and by clock moves', async () => {
    const runner = new JobRunner(database, clock, { ...runnerOptions, pollMs: 60_000 });
    const seen: number[] = [];
    let resolveSeen: () => void = () => {};
    runner.register('bg.test', async (payload: { n: number }) => {
      seen.push(payload.n);
      resolveSeen();
    });
    runner.start();
    try {
      let waiting = new Promise<void>((r) => (resolveSeen = r));
      await runner.enqueue(database.db, 'bg.test', { n: 1 });
      await waiting;
      waiting = new Promise<void>((r) => (resolveSeen = r));
      await runner.enqueue(database.db, 'bg.test', { n: 2 }, { runAt: clock.now() + 10_000 });
      clock.advance(10_000);
      await waiting;
      expect(seen).toEqual([1, 2]);
    } finally {
      await runner.stop();
    }
  });
});

describe.each(dialects)('jobs and clock through the operator API on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect, {
      modules: () => [
        {
          name: 'doomed',
          registerJobs: (jobs) => jobs.register('doomed.test', async () => Promise.reject(new Error('always fails')), { maxAttempts: 1 }),
        },
      ],
    });
  });
  afterAll(() => h.close());

  it('shows dead jobs and queues them again', async () => {
    const id = await h.pbs.ctx.jobs.enqueue(h.database.db, 'doomed.test', { why: 'test' });
    await h.pbs.ctx.jobs.runDue();
    const list = await admin(h.url, 'GET', '/admin/v1/jobs?state=dead');
    expect(list.status).toBe(200);
    expect(list.body.jobs.find((j: { id: string }) => j.id === id)).toMatchObject({ state: 'dead', last_error: 'always fails', payload: { why: 'test' } });
    const retried = await admin(h.url, 'POST', `/admin/v1/jobs/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.state).toBe('pending');
    const again = await admin(h.url, 'POST', `/admin/v1/jobs/${id}/retry`);
    expect(again.status).toBe(409);
    expect((await admin(h.url, 'POST', '/admin/v1/jobs/nope/retry')).status).toBe(404);
    expect((await admin(h.url, 'GET', '/admin/v1/jobs?state=bogus')).status).toBe(400);
  });

  it('reads, freezes, sets and advances the sandbox clock', async () => {
    const read = await admin(h.url, 'GET', '/admin/v1/clock');
    expect(read.body).toMatchObject({ now: new Date(T0).toISOString(), frozen: true, sandbox: true });
    const set = await admin(h.url, 'PUT', '/admin/v1/clock', { json: { time: '2031-06-01T12:00:00Z' } });
    expect(set.body.now).toBe('2031-06-01T12:00:00.000Z');
    const advanced = await admin(h.url, 'POST', '/admin/v1/clock/advance', { json: { minutes: 5, seconds: 1 } });
    expect(advanced.body.now).toBe('2031-06-01T12:05:01.000Z');
    expect(h.clock.now()).toBe(Date.parse('2031-06-01T12:05:01Z'));
    const running = await admin(h.url, 'PUT', '/admin/v1/clock', { json: { frozen: false } });
    expect(running.body.frozen).toBe(false);
    const frozen = await admin(h.url, 'PUT', '/admin/v1/clock', { json: { frozen: true, time: '2031-07-01T00:00:00Z' } });
    expect(frozen.body).toMatchObject({ frozen: true, now: '2031-07-01T00:00:00.000Z' });
    const bad = await admin(h.url, 'PUT', '/admin/v1/clock', { json: { time: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('shares the sandbox clock with another process through the database', async () => {
    await admin(h.url, 'PUT', '/admin/v1/clock', { json: { frozen: true, time: '2032-01-01T00:00:00Z' } });
    const second = await startPbs(dialect, { database: h.database, clock: new ControllableClock() });
    try {
      expect(new Date(second.clock.now()).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    } finally {
      await second.close();
    }
  });
});

describe('clock outside sandbox mode', () => {
  it('can be read but not moved', async () => {
    const database = await openTestDatabase('sqlite');
    const pbs = await createPbs(testConfig({ PBS_SANDBOX: '0', PBS_SECRET_KEY: 'a-test-secret-key-of-at-least-32-characters' }), { database });
    try {
      const url = await pbs.listen();
      const read = await admin(url, 'GET', '/admin/v1/clock');
      expect(read.status).toBe(200);
      expect(read.body.sandbox).toBe(false);
      expect(Math.abs(Date.parse(read.body.now) - Date.now())).toBeLessThan(60_000);
      const move = await admin(url, 'POST', '/admin/v1/clock/advance', { json: { seconds: 5 } });
      expect(move.status).toBe(409);
      expect(move.body.error.code).toBe('CONFLICT');
    } finally {
      await pbs.close();
    }
  });
});
