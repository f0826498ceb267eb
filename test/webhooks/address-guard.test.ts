import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, forbiddenAddress, guardedLookup, type AddressPolicy } from '../../src/webhooks/address-guard.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

const production: AddressPolicy = { allowPrivate: false, allowLoopback: false };
const sandbox: AddressPolicy = { allowPrivate: false, allowLoopback: true };
const privateAllowed: AddressPolicy = { allowPrivate: true, allowLoopback: false };

// [spelling, refused in production?, refused with private addresses allowed?]
const table: Array<[string, boolean, boolean]> = [
  // global unicast: allowed
  ['8.8.8.8', false, false],
  ['93.184.216.34', false, false],
  ['2606:4700:4700::1111', false, false],
  ['2a00:1450:4001:81b::200e', false, false],
  ['[2606:4700:4700::1111]', false, false],
  ['::ffff:8.8.8.8', false, false],
  ['64:ff9b::808:808', false, false],
  // loopback, in every spelling
  ['127.0.0.1', true, true],
  ['127.1.2.3', true, true],
  ['::1', true, true],
  ['::ffff:127.0.0.1', true, true],
  ['::ffff:7f00:1', true, true],
  ['[::ffff:7f00:1]', true, true],
  ['::127.0.0.1', true, true],
  ['::7f00:1', true, true],
  ['64:ff9b::7f00:1', true, true],
  ['2002:7f00:1::', true, true],
  ['0:0:0:0:0:ffff:127.0.0.1', true, true],
  // private ranges: refused unless the operator allows them
  ['10.0.0.1', true, false],
  ['172.16.5.4', true, false],
  ['192.168.1.1', true, false],
  ['100.64.0.1', true, false],
  ['fc00::1', true, false],
  ['fd12:3456::1', true, false],
  ['::ffff:10.0.0.1', true, false],
  ['64:ff9b::a00:1', true, false],
  // metadata and link-local: always refused
  ['169.254.169.254', true, true],
  ['::ffff:a9fe:a9fe', true, true],
  ['::ffff:169.254.169.254', true, true],
  ['64:ff9b::a9fe:a9fe', true, true],
  ['64:ff9b::169.254.169.254', true, true],
  ['2002:a9fe:a9fe::1', true, true],
  ['fd00:ec2::254', true, true],
  ['100.100.100.200', true, true],
  ['169.254.1.1', true, true],
  ['fe80::1', true, true],
  ['fe80::1%eth0', true, true],
  // special purpose: always refused
  ['0.0.0.0', true, true],
  ['::', true, true],
  ['224.0.0.1', true, true],
  ['239.255.255.250', true, true],
  ['ff02::1', true, true],
  ['255.255.255.255', true, true],
  ['198.18.0.1', true, true],
  ['198.19.255.254', true, true],
  ['192.0.2.1', true, true],
  ['198.51.100.7', true, true],
  ['203.0.113.9', true, true],
  ['192.0.0.8', true, true],
  ['240.0.0.1', true, true],
  ['2001::1', true, true], // Teredo
  ['2001:db8::1', true, true], // documentation
  ['64:ff9b:1::1', true, true], // local-use NAT64
  ['not-an-ip', true, true],
];

describe('webhook address guard (pure: no traffic leaves loopback)', () => {
  it(`judges ${table.length} address spellings`, () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
    for (const [address, refusedInProduction, refusedWithPrivate] of table) {
      expect(
        forbiddenAddress(address, production) !== undefined,
        `${address} in production: ${forbiddenAddress(address, production)}`,
      ).toBe(refusedInProduction);
      expect(forbiddenAddress(address, privateAllowed) !== undefined, `${address} with private allowed`).toBe(refusedWithPrivate);
    }
    // Loopback is the sandbox's one exception, in every spelling.
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::1]'])
      expect(forbiddenAddress(address, sandbox), address).toBeUndefined();
    for (const address of ['127.255.0.9', '::ffff:127.1.2.3']) expect(forbiddenAddress(address, sandbox), address).toBeUndefined();
    expect(forbiddenAddress('169.254.169.254', sandbox)).toBe('metadata address');
    // IPv4 loopback embedded any other way leaves through the IPv6 route: not this machine.
    for (const address of ['[64:ff9b::7f00:1]', '[2002:7f00:1::]', '[::ffff:0:127.0.0.1]', '[::127.0.0.1]']) {
      expect(forbiddenAddress(address, sandbox), address).toBe('loopback address inside an IPv6 address');
    }
  });

  it('checks URLs: schemes, credentials, literals and every address a name resolves to', async () => {
    const resolve = async (host: string) =>
      host === 'mixed.example'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.5', family: 4 },
          ]
        : [{ address: '93.184.216.34', family: 4 }];
    expect(await checkWebhookUrl('https://partner.example/hooks', production, resolve)).toBeUndefined();
    expect(await checkWebhookUrl('https://mixed.example/hooks', production, resolve)).toMatch(/private address \(10\.0\.0\.5\)/);
    expect(await checkWebhookUrl('http://[::ffff:127.0.0.1]:8080/', production, resolve)).toMatch(/loopback/);
    expect(await checkWebhookUrl('http://[64:ff9b::a9fe:a9fe]/', production, resolve)).toMatch(/metadata/);
    expect(await checkWebhookUrl('ftp://partner.example/', production, resolve)).toMatch(/only http/);
    expect(await checkWebhookUrl('https://user:pw@partner.example/', production, resolve)).toMatch(/credentials/);
    expect(await checkWebhookUrl('not a url', production, resolve)).toMatch(/not a valid URL/);
    expect(await checkWebhookUrl('https://gone.example/', production, async () => Promise.reject(new Error('ENOTFOUND')))).toMatch(
      /cannot resolve/,
    );
  });

  it('refuses at connection time a name that rebinds to a forbidden address after the check', async () => {
    let answer = '93.184.216.34';
    const lookup = guardedLookup(production, async () => [{ address: answer, family: 4 }]);
    const resolveWith = (options: object) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        lookup('rebind.example', options, (error, address) => resolve({ error, address })),
      );
    expect(await resolveWith({})).toEqual({ error: null, address: '93.184.216.34' });
    expect((await resolveWith({ all: true })).address).toEqual([{ address: '93.184.216.34', family: 4 }]);
    answer = '169.254.169.254';
    const refused = await resolveWith({ all: true });
    expect(refused.error?.message).toMatch(/metadata address/);
    answer = '::ffff:127.0.0.1';
    expect((await resolveWith({})).error?.message).toMatch(/loopback/);
  });
});

/** A receiver on loopback that answers verification, then misbehaves as the test asks. */
function misbehavingReceiver(
  onPost: (res: http.ServerResponse, req: http.IncomingMessage) => void,
  onVerify?: (res: http.ServerResponse, token: string) => void,
) {
  const server = http.createServer((req, res) => {
    const token = new URL(req.url ?? '/', 'http://x').searchParams.get('verification');
    if (req.method === 'GET' && token) return onVerify ? onVerify(res, token) : res.end(JSON.stringify({ verification: token }));
    req.resume();
    req.on('end', () => onPost(res, req));
  });
  return {
    server,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(dialects)('what a receiver can make pbs read, on %s', (dialect) => {
  let h: Harness;
  let businessId: string;
  let n = 0;
  beforeAll(async () => {
    // A deadline a busy machine's loopback meets; the drip below outlasts it whatever it is.
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '3000', PBS_RATE_LIMIT_PER_SECOND: '1000' } });
    businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Guarded' }) })).body.id;
  });
  afterAll(() => h.close());

  const register = async (url: string) => {
    const p = await createPartner(h.url, ['webhooks'], `Guarded ${++n}`);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'c' } });
    const verified = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
    return { p, verified: verified.body };
  };
  const subscribeAndEmit = async (p: Awaited<ReturnType<typeof createPartner>>) => {
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: p.apiKey.api_key, json: { business_ids: [businessId] } });
    await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: {} });
    await h.pbs.deliverWebhooks();
    return (await admin(h.url, 'GET', `/admin/v1/webhook-deliveries?partner_id=${p.partner.id}`)).body.deliveries[0];
  };

  it('ends a delivery whose answer drips at the deadline, and drops the connection', async () => {
    let dripping = true;
    let closedWhileDripping = false;
    const receiver = misbehavingReceiver((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => {
        if (dripping) closedWhileDripping = true;
      });
      // Drips until pbs hangs up (or, should it never, for a minute: then the test fails).
      let sent = 0;
      const drip = setInterval(() => {
        if (++sent > 600 || res.destroyed) {
          dripping = false;
          clearInterval(drip);
          res.end();
        } else res.write('x');
      }, 100);
    });
    try {
      const { p, verified } = await register(await receiver.start());
      expect(verified.status).toBe('verified');
      const delivery = await subscribeAndEmit(p);
      // The 200 came in time: delivered, though its body never finished.
      expect(delivery).toMatchObject({ status: 'delivered', last_status_code: 200 });
      expect(closedWhileDripping).toBe(true);
    } finally {
      await receiver.stop();
    }
  });

  it('reads at most 64 KB of an answer: a huge delivery answer is cut off, a huge verification answer fails', async () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, 'a');
    const receiver = misbehavingReceiver(
      (res) => res.writeHead(200).end(huge),
      (res, token) => res.end(JSON.stringify({ verification: token, padding: huge.toString() })),
    );
    try {
      const { verified } = await register(await receiver.start());
      expect(verified.status).toBe('failed');
      expect(verified.status_reason).toMatch(/longer than 65536 bytes/);
      const ok = misbehavingReceiver((res) => res.writeHead(200).end(huge));
      try {
        const { p } = await register(await ok.start());
        const delivery = await subscribeAndEmit(p);
        expect(delivery.status).toBe('delivered');
        expect(delivery.attempts_log[0].response_excerpt.length).toBeLessThanOrEqual(500);
      } finally {
        await ok.stop();
      }
    } finally {
      await receiver.stop();
    }
  });
});
