import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foundationMigrations } from '../../src/app.js';
import { logFileOf, openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { requestLogFaultMigration, requestLogMigration } from '../../src/workbench/request-log-tables.js';
import { call, createPartner, dialects, openTestDatabase, startPbs, type Harness, type TestDatabase } from '../support/harness.js';
import { createRestaurant, guest, hold, reserve } from '../support/restaurant.js';

/**
 * The request log's batches must not disturb the rest of pbs (docs/request-log.md "How it is
 * written"): on SQLite they go to a file of their own, so another process's caches, which watch
 * the main file's `data_version`, are not emptied four times a second; on PostgreSQL they add
 * nothing to the change log other processes read.
 */
describe.each(dialects)('request log batches and other processes on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let other: Database | undefined;
  let h: Harness;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-log-file-'));
    if (dialect === 'sqlite') {
      const file = path.join(dir, 'pbs.sqlite');
      const opened = await openDatabase({ sqlitePath: file });
      database = { ...opened, drop: () => opened.close() };
      // Another process's connection to the same file.
      other = await openDatabase({ sqlitePath: file });
    } else database = await openTestDatabase(dialect);
    h = await startPbs(dialect, { database, env: { PBS_REQUEST_LOG: '1', PBS_REQUEST_LOG_WRITER: 'thread' } });
  });
  afterAll(async () => {
    await h.close();
    await other?.close();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const changeLogRows = async () =>
    dialect === 'postgres' ? Number((await sql<{ n: number }>`select count(*) as n from change_log`.execute(h.database.db)).rows[0].n) : 0;

  it('writes a batch of entries without moving what other processes watch', async () => {
    const p = await createPartner(h.url, ['reservations']);
    await h.pbs.services.requestLog.flush();
    const version = other?.dataVersion?.();
    const changes = await changeLogRows();

    for (let i = 0; i < 5; i++)
      expect(
        (await call(h.url, 'GET', '/v3/bookings/nowhere/openings?date=2031-05-07&time=19:00&covers=2', { token: p.apiKey.api_key })).status,
      ).toBe(404);
    await h.pbs.services.requestLog.flush();

    const listed = await h.pbs.services.requestLog.list({ partnerId: p.partner.id, limit: 10 });
    expect(listed).toHaveLength(5);
    expect(other?.dataVersion?.()).toBe(version);
    expect(await changeLogRows()).toBe(changes);

    if (dialect === 'sqlite') {
      // The entries are in the log file; the main file has no such table. A change to the main
      // file does move the other connection's version (the check above can fail).
      const logFile = new (await import('better-sqlite3')).default(logFileOf(path.join(dir, 'pbs.sqlite')), { readonly: true });
      try {
        expect(logFile.prepare('select count(*) as n from request_log where partner_id = ?').get(p.partner.id)).toEqual({ n: 5 });
      } finally {
        logFile.close();
      }
      expect((await sql`select name from main.sqlite_master where name = 'request_log'`.execute(h.database.db)).rows).toEqual([]);
      expect(fs.statSync(logFileOf(path.join(dir, 'pbs.sqlite'))).mode & 0o777).toBe(0o600);
      await createPartner(h.url, ['reservations']);
      expect(other?.dataVersion?.()).not.toBe(version);
    }
  });

  it('makes rows and writes them on a thread of its own, keeping what the main thread would keep', async () => {
    const p = await createPartner(h.url, ['reservations']);
    const restaurantId = (await createRestaurant(h.url)).id;
    const slot = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'thread-1' };
    const held = await hold(h.url, p.apiKey.api_key, restaurantId, slot);
    const booked = await reserve(h.url, p.apiKey.api_key, restaurantId, { ...slot, ...guest, hold_id: held.body.hold_id });
    expect(booked.status, booked.text).toBe(200);
    await h.pbs.services.requestLog.flush();
    expect(h.pbs.services.requestLog.writtenOnThread).toBe(true);

    const [entry] = await h.pbs.services.requestLog.list({
      partnerId: p.partner.id,
      operation: 'POST /v3/bookings/{business_id}/reservations',
      limit: 1,
    });
    const whole = await h.pbs.services.requestLog.entry(entry.id);
    expect(whole?.status).toBe(200);
    // The guest's name, phone and e-mail are masked by the thread as by the main thread.
    const kept = JSON.parse(whole!.request_body!);
    expect(kept).toMatchObject({
      first_name: '[masked]',
      last_name: '[masked]',
      phone: '[masked]',
      email: '[masked]',
      hold_id: held.body.hold_id,
    });
    expect(whole!.request_body).not.toContain(guest.last_name);
    // The thread keeps the partner's readiness in the batch's transaction (docs/readiness.md).
    const readiness = await h.pbs.services.readiness.report(p.partner.id);
    const reservations = readiness.interfaces.find((i) => i.interface === 'reservations')!;
    expect(reservations.milestones.find((m) => m.id === 'reservations.hold_then_reserve')).toMatchObject({
      status: 'green',
      evidence: [booked.headers.get('x-request-id')],
    });
  });

  // Last in this block: the writer thread does not come back for the rest of the server's life.
  it('writes on the main thread once the writer thread has ended by itself, losing no later entry', async () => {
    const p = await createPartner(h.url, ['reservations']);
    const openings = '/v3/bookings/nowhere/openings?date=2031-05-07&time=19:00&covers=2';
    await call(h.url, 'GET', openings, { token: p.apiKey.api_key });
    await h.pbs.services.requestLog.flush();
    expect(h.pbs.services.requestLog.writtenOnThread).toBe(true);

    // As a crash of the thread would (an uncaught error, its memory exhausted): it ends without being closed.
    const { thread } = h.pbs.services.requestLog as unknown as { thread: { worker: Worker } };
    const ended = new Promise((resolve) => thread.worker.once('exit', resolve));
    await thread.worker.terminate();
    await ended;

    for (let i = 0; i < 3; i++) expect((await call(h.url, 'GET', openings, { token: p.apiKey.api_key })).status).toBe(404);
    await h.pbs.services.requestLog.flush();
    expect(h.pbs.services.requestLog.writtenOnThread).toBe(false);
    expect(await h.pbs.services.requestLog.list({ partnerId: p.partner.id, limit: 10 })).toHaveLength(4);
  });
});

describe('a SQLite database from before the log file', () => {
  it('moves the entries written so far into the log file, and keeps them readable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-log-move-'));
    const file = path.join(dir, 'pbs.sqlite');
    try {
      // The request log as it was: a table of the main file, with an entry.
      const before = await openDatabase({ sqlitePath: file });
      await migrateToLatest(before, [...foundationMigrations, requestLogMigration, requestLogFaultMigration]);
      await sql`insert into main.request_log (at, interface, operation, method, path, query, status, duration_ms, request_id, client_address, response_body)
        values (1, 'reservations', 'GET /v3/bookings/{business_id}/openings', 'GET', '/v3/bookings/x/openings', '', 404, 1.5, 'req-1', '127.0.0.1', '{}')`.execute(
        before.db,
      );
      await before.close();

      const h = await startPbs('sqlite', { database: { ...(await openDatabase({ sqlitePath: file })), drop: async () => {} } });
      try {
        const [entry] = await h.pbs.services.requestLog.list({ requestId: 'req-1', limit: 10 });
        expect(entry).toMatchObject({ request_id: 'req-1', status: 404, path: '/v3/bookings/x/openings' });
        const tables = await sql<{ name: string }>`select name from main.sqlite_master where name = 'request_log'`.execute(h.database.db);
        expect(tables.rows).toEqual([]);
      } finally {
        await h.close();
        await h.database.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Issue 39: purged request-log rows stayed readable in the SQLite file. */
describe('purged request-log entries on SQLite', () => {
  it('leaves none of their bytes in the log file or its WAL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-log-purge-'));
    const file = path.join(dir, 'pbs.sqlite');
    const opened = await openDatabase({ sqlitePath: file });
    const h = await startPbs('sqlite', { database: { ...opened, drop: () => opened.close() }, env: { PBS_REQUEST_LOG_WRITER: 'thread' } });
    try {
      const p = await createPartner(h.url, ['reservations']);
      const marker = 'PurgedMarkerQx7';
      for (let i = 0; i < 20; i++)
        await call(h.url, 'GET', `/v3/bookings/${marker}-${i}/openings?date=2031-05-07&time=19:00&covers=2`, { token: p.apiKey.api_key });
      await h.pbs.services.requestLog.flush();
      const bytesOnDisk = () =>
        [logFileOf(file), `${logFileOf(file)}-wal`]
          .filter((f) => fs.existsSync(f))
          .map((f) => fs.readFileSync(f).toString('latin1'))
          .join('');
      expect(bytesOnDisk()).toContain(marker);
      h.clock.advance(8 * 24 * 3_600_000);
      expect(await h.pbs.services.requestLog.purge()).toBeGreaterThanOrEqual(20);
      expect(bytesOnDisk()).not.toContain(marker);
    } finally {
      await h.close();
      await opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
