import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../../src/platform/clock.js';
import { defineTask, exponentialBackoff, TaskRunner, type TaskTypeOptions } from '../../src/platform/tasks/task-runner.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createPbs, foundationMigrations } from '../../src/app.js';
import { SettingsStore } from '../../src/platform/settings.js';
import { admin, call, dialects, openTestDatabase, startPbs, T0, testConfig, type Harness, type TestDatabase } from '../support/harness.js';

const runnerOptions = { pollMs: 20, batchSize: 10, leaseMs: 60_000 };
/** A task type whose payload may be any object (the tests below are about running, not schemas). */
const task = <P = any>(name: string, options: TaskTypeOptions = {}) => defineTask<P>(name, { type: 'object' }, options);

describe.each(dialects)('task runner on %s', (dialect) => {
  let database: TestDatabase;
  let clock: ControllableClock;

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    await migrateToLatest(database, foundationMigrations);
    clock = new ControllableClock({ frozenAtMs: T0 });
  });
  afterAll(() => database.drop());

  it('writes tasks in the transaction of the change: a rollback leaves no task behind', async () => {
    const runner = new TaskRunner(database, clock, runnerOptions);
    runner.register(task('tx.test'), async () => {});
    await database.db.transaction().execute(async (trx) => {
      await new SettingsStore(trx).set('tx-commit', '1');
      await runner.enqueue(trx, task('tx.test'), { n: 1 }, { id: 'job-commit' });
    });
    await expect(
      database.db.transaction().execute(async (trx) => {
        await new SettingsStore(trx).set('tx-rollback', '1');
        await runner.enqueue(trx, task('tx.test'), { n: 2 }, { id: 'job-rollback' });
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(await runner.get('job-commit')).toBeDefined();
    expect(await runner.get('job-rollback')).toBeUndefined();
    expect(await new SettingsStore(database.db).get('tx-rollback')).toBeUndefined();
    expect(await runner.runDue()).toBe(1);
    expect((await runner.get('job-commit'))!.state).toBe('succeeded');
  });

  it('runs a task only when due by the clock', async () => {
    const runner = new TaskRunner(database, clock, runnerOptions);
    const seen: unknown[] = [];
    runner.register(task('later.test'), async (payload) => {
      seen.push(payload);
    });
    await runner.enqueue(database.db, task('later.test'), { hello: 'world' }, { runAt: clock.now() + 60_000 });
    expect(await runner.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await runner.runDue()).toBe(1);
    expect(seen).toEqual([{ hello: 'world' }]);
  });

  it('retries a failing task with backoff and then marks it dead, visibly', async () => {
    const runner = new TaskRunner(database, clock, runnerOptions);
    let calls = 0;
    runner.register(task('flaky.test', { maxAttempts: 3, backoffMs: exponentialBackoff(1000, 60_000, 0) }), async () => {
      calls++;
      throw new Error(`failure ${calls}`);
    });
    const id = await runner.enqueue(database.db, task('flaky.test'), {});
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

  it('takes over a task whose worker died (lease expired)', async () => {
    const runner = new TaskRunner(database, clock, { ...runnerOptions, leaseMs: 1 });
    const done: string[] = [];
    runner.register(task('lease.test'), async (payload: { id: string }) => {
      done.push(payload.id);
    });
    const id = await runner.enqueue(database.db, task('lease.test'), { id: 'x' });
    // A worker that claimed the job and vanished.
    await database.db
      .updateTable('tasks')
      .set({ state: 'running', locked_by: 'ghost', locked_until: Date.now() - 1 })
      .where('id', '=', id)
      .execute();
    expect(await runner.runDue()).toBe(1);
    expect(done).toEqual(['x']);
    expect((await runner.get(id))!.state).toBe('succeeded');
  });

  it('lets several runners share the queue without running a task twice', async () => {
    const executions = new Map<number, number>();
    const runners = [0, 1, 2].map(() => {
      const r = new TaskRunner(database, clock, { ...runnerOptions, batchSize: 5 });
      r.register(task('shared.test'), async (payload: { n: number }) => {
        executions.set(payload.n, (executions.get(payload.n) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 1));
      });
      return r;
    });
    for (let n = 0; n < 60; n++) await runners[0].enqueue(database.db, task('shared.test'), { n });
    await Promise.all(runners.map((r) => r.runDue()));
    expect(executions.size).toBe(60);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
  });

  it('checks payloads against the task type’s schema when enqueued and when run', async () => {
    const runner = new TaskRunner(database, clock, runnerOptions);
    const typed = defineTask<{ request_id: string }>('typed.test', {
      type: 'object',
      required: ['request_id'],
      properties: { request_id: { type: 'string' } },
    });
    const ran: string[] = [];
    runner.register(typed, async (payload) => void ran.push(payload.request_id));
    await expect(runner.enqueue(database.db, typed, { request_id: 7 } as never)).rejects.toThrow(/does not match its schema/);
    // A payload stored by an older version that no longer fits: dead at once, with the reason.
    await runner.enqueue(database.db, typed, { request_id: 'ok' }, { id: 'typed-ok' });
    await runner.enqueue(database.db, typed, { request_id: 'later' }, { id: 'typed-bad' });
    await database.db.updateTable('tasks').set({ payload: '{"other":1}' }).where('id', '=', 'typed-bad').execute();
    expect(await runner.runDue()).toBe(2);
    expect(ran).toEqual(['ok']);
    expect(await runner.get('typed-bad')).toMatchObject({ state: 'dead', attempts: 1, last_error: expect.stringMatching(/request_id/) });
  });

  it('runs a schedule on the pbs clock, in one of several runners at a time', async () => {
    let runs = 0;
    const runners = [0, 1, 2].map(() => {
      const r = new TaskRunner(database, clock, runnerOptions);
      r.schedule({ name: `every-minute-${dialect}`, everyMs: 60_000, run: async () => void runs++ });
      return r;
    });
    await Promise.all(runners.map((r) => r.runDue()));
    expect(runs).toBe(1); // due at once when first registered, in one runner only
    await Promise.all(runners.map((r) => r.runDue()));
    expect(runs).toBe(1); // not again until the next minute of pbs time
    clock.advance(60_000);
    await Promise.all(runners.map((r) => r.runDue()));
    expect(runs).toBe(2);
    clock.advance(60_000);
    await runners[2].runDue();
    expect(runs).toBe(3);
    // The sandbox clock moved back an hour: the next run, now more than a period ahead, is due at once.
    clock.advance(-3_600_000);
    await runners[0].runDue();
    expect(runs).toBe(4);
    await runners[1].runDue();
    expect(runs).toBe(4);
  });

  it('runs tasks in the background once started, woken by enqueue and by clock moves', async () => {
    const runner = new TaskRunner(database, clock, { ...runnerOptions, pollMs: 60_000 });
    const seen: number[] = [];
    let resolveSeen: () => void = () => {};
    runner.register(task('bg.test'), async (payload: { n: number }) => {
      seen.push(payload.n);
      resolveSeen();
    });
    runner.start();
    try {
      let waiting = new Promise<void>((r) => (resolveSeen = r));
      await runner.enqueue(database.db, task('bg.test'), { n: 1 });
      await waiting;
      waiting = new Promise<void>((r) => (resolveSeen = r));
      await runner.enqueue(database.db, task('bg.test'), { n: 2 }, { runAt: clock.now() + 10_000 });
      clock.advance(10_000);
      await waiting;
      expect(seen).toEqual([1, 2]);
    } finally {
      await runner.stop();
    }
  });
});

describe.each(dialects)('tasks and clock through the operator API on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect, {
      modules: () => [
        {
          name: 'doomed',
          registerTasks: (tasks) =>
            tasks.register(task('doomed.test', { maxAttempts: 1 }), async () => Promise.reject(new Error('always fails'))),
        },
      ],
    });
  });
  afterAll(() => h.close());

  it('shows dead tasks and queues them again', async () => {
    const id = await h.pbs.ctx.tasks.enqueue(h.database.db, task('doomed.test'), { why: 'test' });
    await h.pbs.ctx.tasks.runDue();
    const list = await admin(h.url, 'GET', '/admin/v1/tasks?state=dead');
    expect(list.status).toBe(200);
    expect(list.body.tasks.find((j: { id: string }) => j.id === id)).toMatchObject({
      state: 'dead',
      last_error: 'always fails',
      payload: { why: 'test' },
    });
    const retried = await admin(h.url, 'POST', `/admin/v1/tasks/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.state).toBe('pending');
    const again = await admin(h.url, 'POST', `/admin/v1/tasks/${id}/retry`);
    expect(again.status).toBe(409);
    expect((await admin(h.url, 'POST', '/admin/v1/tasks/nope/retry')).status).toBe(404);
    expect((await admin(h.url, 'GET', '/admin/v1/tasks?state=bogus')).status).toBe(400);
    // The routes' old names redirect, keeping the method.
    const old = await fetch(`${h.url}/admin/v1/jobs?state=dead`, {
      headers: { authorization: 'Bearer test-admin-token' },
      redirect: 'manual',
    });
    expect(old.status).toBe(308);
    expect(old.headers.get('location')).toBe('/admin/v1/tasks?state=dead');
    const followed = await admin(h.url, 'GET', '/admin/v1/jobs?type=doomed.test');
    expect(followed.body.tasks.map((t: { id: string }) => t.id)).toContain(id);
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
    const token = 'a-production-operator-token-of-32-characters';
    const pbs = await createPbs(
      testConfig({ PBS_SANDBOX: '0', PBS_SECRET_KEY: 'a-test-secret-key-of-at-least-32-characters', PBS_ADMIN_TOKEN: token }),
      { database },
    );
    try {
      const url = await pbs.listen();
      const read = await call(url, 'GET', '/admin/v1/clock', { token });
      expect(read.status).toBe(200);
      expect(read.body.sandbox).toBe(false);
      expect(Math.abs(Date.parse(read.body.now) - Date.now())).toBeLessThan(60_000);
      const move = await call(url, 'POST', '/admin/v1/clock/advance', { token, json: { seconds: 5 } });
      expect(move.status).toBe(409);
      expect(move.body.error.code).toBe('CONFLICT');
    } finally {
      await pbs.close();
    }
  });
});
