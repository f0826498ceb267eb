import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, call, postgresSchemaForProcesses } from '../support/harness.js';
import { startServerProcess, type ServerProcess } from '../support/process.js';
import { Receiver } from '../support/receiver.js';
import { eventually } from '../support/wait.js';

const EVENTS = 2000;

const waitFor = (condition: () => boolean | Promise<boolean>, what: string) => eventually(condition, (met) => met, what, 20);

describe.each(['sqlite', 'postgres'] as const)('webhook delivery survives SIGKILL on %s', (dialect) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it(`delivers all ${EVENTS} messages at least once across a crash and restart`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-crash-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      PBS_DATA_DIR: dataDir,
      PBS_ADMIN_TOKEN: ADMIN_TOKEN,
      PBS_SEED_DEMO: '0',
      PBS_WEBHOOK_TIMEOUT_MS: '2000',
      PBS_WEBHOOK_POLL_MS: '50',
    };
    if (dialect === 'postgres') {
      const pg = await postgresSchemaForProcesses('k');
      cleanups.push(() => pg.drop());
      env.DATABASE_URL = pg.databaseUrl;
    }
    const receiver = new Receiver();
    const received = new Set<string>();
    let posts = 0;
    receiver.behaviour = (req, res) => {
      const token = new URL(req.url, 'http://x').searchParams.get('verification');
      if (req.method === 'GET' && token) return void res.end(JSON.stringify({ verification: token }));
      posts++;
      received.add(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    };
    const hookUrl = await receiver.start();
    cleanups.push(() => receiver.stop());

    // 1. A process without the deliverer takes the setup and the events…
    let server: ServerProcess = await startServerProcess({ ...env, PBS_TASKS: '0' });
    cleanups.push(async () => void (await server.stop('SIGKILL')));
    const base = server.url;
    const business = (
      await admin(base, 'POST', '/admin/v1/businesses', {
        json: { name: 'Crash Diner', location: { city: 'Toronto', state: 'ON', country: 'CA' }, timezone: 'America/Toronto' },
      })
    ).body;
    const partner = (await admin(base, 'POST', '/admin/v1/partners', { json: { name: 'Crash', interfaces: ['webhooks'] } })).body;
    await admin(base, 'PUT', `/admin/v1/partners/${partner.id}/interfaces/webhooks`, { json: { per_second: 100000 } });
    const key = (await admin(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, { json: { kind: 'api_key' } })).body.api_key;
    await admin(base, 'PUT', `/admin/v1/partners/${partner.id}/webhook`, { json: { url: hookUrl, client_id: 'crash' } });
    expect((await admin(base, 'POST', `/admin/v1/partners/${partner.id}/webhook/verify`)).body.status).toBe('verified');
    await admin(base, 'PUT', `/admin/v1/partners/${partner.id}/businesses/${business.id}`);
    expect(
      (await call(base, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: key, json: { business_ids: [business.id] } })).status,
    ).toBe(200);

    // Emit the events, 20 requests at a time.
    const messageIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < EVENTS) {
          next++;
          const r = await admin(base, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, { json: {} });
          expect(r.status).toBe(201);
          messageIds.push(r.body.message_id);
        }
      }),
    );
    expect(received.size).toBe(0);
    await server.stop('SIGTERM');

    // 2. …a delivering process is killed with SIGKILL in the middle of the work…
    server = await startServerProcess(env);
    await waitFor(() => received.size >= EVENTS / 5, 'the first deliveries');
    await server.stop('SIGKILL');
    const killedAt = received.size;
    expect(killedAt).toBeLessThan(EVENTS);

    // 3. …and a restarted one finishes: nothing is lost.
    server = await startServerProcess(env);
    await waitFor(() => received.size === EVENTS, `all ${EVENTS} messages (have ${received.size})`);
    expect(new Set(messageIds)).toEqual(received);
    expect(posts).toBeGreaterThanOrEqual(EVENTS); // at least once; a few may come twice

    // Every delivery is recorded as delivered.
    await waitFor(
      async () => (await admin(server.url, 'GET', '/admin/v1/webhook-deliveries?status=pending&limit=1')).body.deliveries.length === 0,
      'settled deliveries',
    );
    expect((await admin(server.url, 'GET', '/admin/v1/webhook-deliveries?status=failed&limit=1')).body.deliveries).toEqual([]);
    console.log(`crash test on ${dialect}: killed after ${killedAt} received; ${posts} POSTs for ${EVENTS} messages`);
  });
});
