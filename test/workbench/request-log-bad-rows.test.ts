import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import type { RequestRecord } from '../../src/platform/http/request-recording.js';
import { admin, call, createPartner, dialects, openTestDatabase, startPbs, type Harness, type TestDatabase } from '../support/harness.js';
import { createRestaurant } from '../support/restaurant.js';
import { eventually } from '../support/wait.js';

const OPENINGS = 'GET /v3/bookings/{business_id}/openings';

/**
 * Issue 39 §3: a request aborted by its client was recorded without an address, the batch's
 * insert failed, and every entry of the batch went with it (another partner's too), uncounted.
 * A bad row costs that row alone, is counted as dropped, and the rest of its batch is written,
 * whether the batch is written by the writer thread or on the main thread.
 */
describe.each(dialects.flatMap((dialect) => (['inline', 'thread'] as const).map((writer) => [dialect, writer] as const)))(
  'a bad request-log row on %s, written %s',
  (dialect, writer) => {
    let dir: string;
    let database: TestDatabase;
    let h: Harness;

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-bad-rows-'));
      if (dialect === 'sqlite') {
        // A file: the writer thread opens the log file with a connection of its own.
        const opened = await openDatabase({ sqlitePath: path.join(dir, 'pbs.sqlite') });
        database = { ...opened, drop: () => opened.close() };
      } else database = await openTestDatabase(dialect);
      // Batches are written only when the test flushes, so everything below shares one batch.
      h = await startPbs(dialect, { database, env: { PBS_REQUEST_LOG_WRITER: writer, PBS_REQUEST_LOG_FLUSH_MS: '3600000' } });
    });
    afterAll(async () => {
      await h.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const waiting = () => (h.pbs.services.requestLog as unknown as { waiting: { count: number } }).waiting.count;

    it("keeps every other entry of the batch, another partner's included, and counts the one refused", async () => {
      const log = h.pbs.services.requestLog;
      await log.flush();
      const droppedBefore = log.dropped;
      const bystander = await createPartner(h.url, ['reservations'], 'Bystander');
      const aborter = await createPartner(h.url, ['reservations'], 'Aborter');
      const restaurant = (await createRestaurant(h.url)).id;
      const openings = `/v3/bookings/${restaurant}/openings?date=2031-05-07&time=19:00&covers=2`;
      await log.flush();
      const before = waiting();

      for (let i = 0; i < 10; i++) expect((await call(h.url, 'GET', openings, { token: bystander.apiKey.api_key })).status).toBe(200);

      // The aborter's call waits on a fault rule; its client gives up before the answer.
      const slow = await admin(h.url, 'POST', `/admin/v1/partners/${aborter.partner.id}/faults`, {
        json: { operation: OPENINGS, action: 'latency', latency_ms: 1000, count: 1 },
      });
      expect(slow.status, slow.text).toBe(201);
      await new Promise<void>((resolve) => {
        const request = http.get(`${h.url}${openings}`, { headers: { authorization: `Bearer ${aborter.apiKey.api_key}` } });
        request.on('error', () => resolve());
        request.on('socket', (socket) => socket.on('connect', () => setImmediate(() => request.destroy())));
      });
      await eventually(waiting, (n) => n === before + 11, 'the aborted call recorded once pbs answered it');

      // A call the fault rule drops, and an entry the database refuses (no interface: NOT NULL).
      await admin(h.url, 'POST', `/admin/v1/partners/${aborter.partner.id}/faults`, {
        json: { operation: OPENINGS, action: 'drop', count: 1 },
      });
      await expect(call(h.url, 'GET', openings, { token: aborter.apiKey.api_key })).rejects.toThrow();
      await eventually(waiting, (n) => n === before + 12, 'the dropped call recorded');
      const refused: RequestRecord = {
        at: h.clock.now(),
        interface: null as unknown as string,
        operation: OPENINGS,
        method: 'GET',
        url: openings,
        status: 200,
        durationMs: 1,
        requestId: 'refused-row',
        idempotencyKey: undefined,
        partnerId: bystander.partner.id,
        credentialKind: 'api_key',
        credentialId: bystander.apiKey.id,
        clientAddress: '127.0.0.1',
        requestBody: undefined,
        responseBody: '{}',
        faultRule: undefined,
        retryAfter: undefined,
        realAt: 1,
      };
      log.record(refused);
      expect(waiting()).toBe(before + 13);

      await log.flush();
      expect(log.writtenOnThread).toBe(writer === 'thread');
      const bystanders = await log.list({ partnerId: bystander.partner.id, limit: 50 });
      expect(bystanders.filter((e) => e.status === 200)).toHaveLength(10);
      expect(bystanders.map((e) => e.request_id)).not.toContain('refused-row');
      const aborted = await log.list({ partnerId: aborter.partner.id, limit: 50 });
      expect(aborted.map((e) => e.status).sort()).toEqual([200, 444]);
      expect(aborted.find((e) => e.status === 200)?.fault_rule).toBe(slow.body.id);
      expect(log.dropped - droppedBefore).toBe(1);
    });
  },
);
