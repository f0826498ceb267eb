import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withRole } from '../../src/platform/config.js';
import { claimDemoSeed, releaseDemoSeed } from '../../src/demo/seed.js';
import { ADMIN_TOKEN, admin, call, createPartner, dialects, sampleBusiness, startPbs } from '../support/harness.js';
import { eventually, processTarget, runCli, startServerProcess, stopStrayServers, type ServerProcess } from '../support/process.js';
import { Receiver } from '../support/receiver.js';
import { restaurantSettings } from '../support/restaurant.js';

/** The process ids of a process's `pbs serve` children (the cluster's API and worker processes; not tsx's esbuild). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => /\bserve\b/.test(line))
      .map((line) => Number(line.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

describe('process roles (configuration)', () => {
  it('reads PBS_ROLE and PBS_PROCESSES, and refuses what cannot work', () => {
    expect(loadConfig({}).role).toBe('all');
    expect(loadConfig({}).processes).toBe(1);
    const api = loadConfig({ PBS_ROLE: 'api' });
    expect(api.tasks.enabled).toBe(false);
    expect(loadConfig({ PBS_ROLE: 'worker' }).tasks.enabled).toBe(true);
    expect(loadConfig({}, { role: 'api', processes: '3' })).toMatchObject({ role: 'api', processes: 3 });
    expect(() => loadConfig({ PBS_ROLE: 'leader' })).toThrow(ConfigError);
    expect(() => loadConfig({ PBS_ROLE: 'worker', PBS_TASKS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ PBS_PROCESSES: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ PBS_PROCESSES: '65' })).toThrow(ConfigError);
    // A cluster's processes: API ones leave background work to the worker.
    const all = loadConfig({ PBS_PROCESSES: '2' });
    expect(withRole(all, 'api')).toMatchObject({ role: 'api', processes: 1, tasks: { enabled: false } });
    expect(withRole(all, 'worker')).toMatchObject({ role: 'worker', processes: 1, tasks: { enabled: true } });
  });
});

describe.each(['sqlite', 'postgres'] as const)('pbs serve as a cluster on %s', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>>;
  let server: ServerProcess;
  const receiver = new Receiver();
  let receiverStarted = false;

  beforeAll(async () => {
    target = await processTarget(dialect, 'cluster');
    server = await startServerProcess({
      ...target.env,
      PBS_ADMIN_TOKEN: ADMIN_TOKEN,
      PBS_PROCESSES: '2',
      PBS_TASKS_POLL_MS: '50',
      PBS_WEBHOOK_POLL_MS: '50',
      PBS_AUTH_CACHE_MS: '0',
    });
  });
  afterAll(async () => {
    if (receiverStarted) await receiver.stop();
    await stopStrayServers();
    await target.cleanup();
  });

  it('starts two API processes and a worker, seeded once, behind one port', async () => {
    expect(server.output()).toMatch(/processes: 2 API \+ 1 worker/);
    expect(childrenOf(server.child.pid!)).toHaveLength(3);
    expect((await call(server.url, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    // The primary seeded the demo dataset once (a second seeding would double it).
    const businesses = await admin(server.url, 'GET', '/admin/v1/businesses?limit=1');
    expect(businesses.body.total).toBe(60);
  });

  it('books a slot once when many connections ask for it at once, whichever process answers', async () => {
    const business = (
      await admin(server.url, 'POST', '/admin/v1/businesses', {
        json: sampleBusiness({ name: 'One Table', transactions: ['restaurant_reservation'] }),
      })
    ).body;
    const settings = {
      ...restaurantSettings,
      closed_dates: [],
      credit_card: { min_party: 99, dates: [] },
      min_notice_minutes: 0,
      tables: [{ name: 'only', min_party: 1, max_party: 4 }],
    };
    expect((await admin(server.url, 'PUT', `/admin/v1/businesses/${business.id}/reservation-settings`, { json: settings })).status).toBe(
      200,
    );
    const partner = await createPartner(server.url, ['reservations']);
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    // One connection each, so the cluster spreads them over both API processes.
    const agents = Array.from({ length: 16 }, () => new Agent({ connections: 1 }));
    try {
      const answers = await Promise.all(
        agents.map(async (dispatcher, i) => {
          const r = await request(`${server.url}/v3/bookings/${business.id}/holds`, {
            method: 'POST',
            dispatcher,
            headers: { authorization: `Bearer ${partner.apiKey.api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ date, time: '19:00', covers: '2', unique_id: `device-${i}` }).toString(),
          });
          return { status: r.statusCode, body: (await r.body.json()) as { error?: { code: string } } };
        }),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error?.code).toBe('HOLD_SLOT_NOT_AVAILABLE');
    } finally {
      await Promise.all(agents.map((a) => a.close()));
    }
  });

  it('runs background work in the worker: a subscription is applied and a webhook delivered once', async () => {
    const url = await receiver.start();
    receiverStarted = true;
    const partner = await createPartner(server.url, ['business_subscriptions', 'webhooks']);
    const business = (await admin(server.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Hooked' }) })).body;
    await admin(server.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/businesses/${business.id}`);
    receiver.behaviour = Receiver.echoing();
    expect(
      (await admin(server.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/webhook`, { json: { url, client_id: 'c' } })).status,
    ).toBe(200);
    expect((await admin(server.url, 'POST', `/admin/v1/partners/${partner.partner.id}/webhook/verify`)).body.status).toBe('verified');
    const subscribe = await call(server.url, 'POST', '/v3/businesses/subscriptions', {
      token: partner.apiKey.api_key,
      json: { subscription_types: ['WEBHOOK'], business_ids: [business.id] },
    });
    expect(subscribe.status).toBe(202);
    await eventually(
      async () =>
        (await call(server.url, 'GET', '/v3/businesses/subscriptions?subscription_type=WEBHOOK', { token: partner.apiKey.api_key })).body
          .total,
      (total) => total === 1,
      'the subscription task',
    );
    const lead = await admin(server.url, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, { json: {} });
    expect(lead.status).toBeLessThan(300);
    await eventually(
      () => receiver.posts().length,
      (n) => n >= 1,
      'the delivery',
    );
    // Two more poll rounds of every process: nobody delivers it again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.posts()).toHaveLength(1);
    const deliveries = await admin(server.url, 'GET', `/admin/v1/webhook-deliveries?partner_id=${partner.partner.id}`);
    expect(deliveries.body.deliveries).toHaveLength(1);
    expect(deliveries.body.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('starts a process again when one dies, and stops them all on SIGTERM', async () => {
    const before = childrenOf(server.child.pid!);
    process.kill(before[0], 'SIGKILL');
    await eventually(
      () => childrenOf(server.child.pid!),
      (now) => now.length === 3 && !now.includes(before[0]) && /exited \(SIGKILL\); starting another/.test(server.output()),
      'a new process',
    );
    await eventually(
      async () => (await call(server.url, 'GET', '/readyz')).status,
      (s) => s === 200,
      'readiness',
    );
    const pid = server.child.pid!;
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(childrenOf(pid)).toEqual([]);
  });
});

describe.each(['sqlite', 'postgres'] as const)('an API process and a worker process on their own (%s)', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>> | undefined;
  afterAll(async () => {
    await stopStrayServers();
    await target?.cleanup();
  });

  it('leave background work to the worker: a subscription waits until one runs', async () => {
    target = await processTarget(dialect, 'roles');
    const env = { ...target.env, PBS_ADMIN_TOKEN: ADMIN_TOKEN, PBS_SEED_DEMO: '0', PBS_TASKS_POLL_MS: '50', PBS_AUTH_CACHE_MS: '0' };
    const api = await startServerProcess({ ...env, PBS_ROLE: 'api' });
    const partner = await createPartner(api.url, ['business_subscriptions', 'webhooks']);
    const business = (await admin(api.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Waiting' }) })).body;
    await admin(api.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/businesses/${business.id}`);
    const token = partner.apiKey.api_key;
    const listed = async () =>
      (await call(api.url, 'GET', '/v3/businesses/subscriptions?subscription_type=WEBHOOK', { token })).body.total as number;
    expect(
      (
        await call(api.url, 'POST', '/v3/businesses/subscriptions', {
          token,
          json: { subscription_types: ['WEBHOOK'], business_ids: [business.id] },
        })
      ).status,
    ).toBe(202);
    // Ten task polls' worth of time: the API process runs none.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await listed()).toBe(0);
    const pending = (await admin(api.url, 'GET', '/admin/v1/tasks?state=pending')).body.tasks as Array<{ type: string }>;
    expect(pending.map((t) => t.type)).toContain('subscriptions.apply');
    const worker = await startServerProcess({ ...env, PBS_ROLE: 'worker' });
    await eventually(listed, (total) => total === 1, 'the worker to apply the subscription');
    expect(await worker.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  });
});

describe.each(dialects)('the demo seed claim on %s', (dialect) => {
  it('lets one process seed at a time, and another once it is released or left for ten minutes', async () => {
    const h = await startPbs(dialect);
    try {
      const db = h.pbs.ctx.database.db;
      const t = Date.parse('2031-05-05T16:00:00Z');
      expect(await claimDemoSeed(db, t)).toBe(true);
      expect(await claimDemoSeed(db, t + 1000)).toBe(false);
      await releaseDemoSeed(db);
      expect(await claimDemoSeed(db, t + 2000)).toBe(true);
      // Its holder died while seeding: after ten minutes the claim is taken over.
      expect(await claimDemoSeed(db, t + 2000 + 9 * 60_000)).toBe(false);
      expect(await claimDemoSeed(db, t + 2000 + 11 * 60_000)).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('processes started together on an empty database (%s)', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>> | undefined;
  afterAll(async () => {
    await stopStrayServers();
    await target?.cleanup();
  });

  it('seed the demo dataset once', async () => {
    target = await processTarget(dialect, 'seed');
    const env = { ...target.env, PBS_ADMIN_TOKEN: ADMIN_TOKEN };
    const [api, worker] = await Promise.all([
      startServerProcess({ ...env, PBS_ROLE: 'api' }),
      startServerProcess({ ...env, PBS_ROLE: 'worker' }),
    ]);
    expect([api, worker].filter((p) => p.output().includes('demo data: 60 restaurants'))).toHaveLength(1);
    expect((await admin(api.url, 'GET', '/admin/v1/businesses?limit=1')).body.total).toBe(60);
    const partners = (await admin(api.url, 'GET', '/admin/v1/partners?limit=100')).body.partners as Array<{ name: string }>;
    expect(partners.filter((p) => p.name === 'Demo Partner')).toHaveLength(1);
  });
});

describe('a cluster whose primary is killed', () => {
  afterAll(() => stopStrayServers());

  it('takes its processes with it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-cluster-'));
    try {
      const server = await startServerProcess({ PBS_DATA_DIR: dir, PBS_ADMIN_TOKEN: ADMIN_TOKEN, PBS_PROCESSES: '2', PBS_SEED_DEMO: '0' });
      const children = childrenOf(server.child.pid!);
      expect(children).toHaveLength(3);
      await server.stop('SIGKILL');
      // Gone, or a zombie waiting for whoever adopted it to reap it.
      const alive = (pid: number) => {
        try {
          return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          return false;
        }
      };
      await eventually(
        async () => children.filter(alive),
        (left) => left.length === 0,
        'the processes to exit',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a cluster that cannot start', () => {
  it('stops every process and exits 1 when one dies while starting (its port is taken)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-cluster-'));
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as net.AddressInfo).port);
      const result = await runCli(['serve'], {
        PBS_DATA_DIR: dir,
        PBS_ADMIN_TOKEN: ADMIN_TOKEN,
        PBS_PROCESSES: '2',
        PORT: port,
        HOST: '127.0.0.1',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/process exited while starting .*; stopping/);
      expect(result.stdout).not.toContain('listening on');
    } finally {
      taken.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('a worker-role process on %s', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>> | undefined;
  afterAll(async () => {
    await stopStrayServers();
    await target?.cleanup();
  });

  it('answers health, readiness and metrics on its port, and no API', async () => {
    target = await processTarget(dialect, 'worker');
    const worker = await startServerProcess({ ...target.env, PBS_ADMIN_TOKEN: ADMIN_TOKEN, PBS_ROLE: 'worker', PBS_SEED_DEMO: '0' });
    expect((await call(worker.url, 'GET', '/healthz')).status).toBe(200);
    expect((await call(worker.url, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    const metrics = (await call(worker.url, 'GET', '/metrics')).text;
    expect(metrics).toContain('process_cpu');
    // Which process answered, when several stand behind one address.
    expect(metrics).toContain(`pbs_process_info{pid="${worker.child.pid}",role="worker"} 1`);
    const partnerRoute = await call(worker.url, 'GET', '/v3/partner/restaurants', { token: 'anything' });
    expect(partnerRoute.status).toBe(404);
    expect(partnerRoute.body.error.code).toBe('NOT_FOUND');
    expect((await admin(worker.url, 'GET', '/admin/v1/partners')).status).toBe(404);
    expect(await worker.stop()).toBe(0);
  });
});
