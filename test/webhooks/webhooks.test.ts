import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { listenForWebhooks } from '../../src/webhooks/listen.js';
import { sign, verifySignature } from '../../src/webhooks/signing.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, testConfig, type Harness } from '../support/harness.js';
import { Receiver, type Behaviour } from '../support/receiver.js';
import { eventually, eventuallyPasses } from '../support/wait.js';

describe.each(dialects)('webhooks on %s', (dialect) => {
  let h: Harness;
  let businessId: string;
  const receivers: Receiver[] = [];
  let n = 0;

  beforeAll(async () => {
    // A deadline a busy machine's loopback meets; the tests of the deadline itself use receivers that never answer.
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '3000', PBS_RATE_LIMIT_PER_SECOND: '1000' } });
    businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Hooked' }) })).body.id;
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  const newReceiver = async (behaviour = Receiver.echoing()) => {
    const r = new Receiver();
    r.behaviour = behaviour;
    receivers.push(r);
    return { receiver: r, url: await r.start() };
  };

  /** A partner with a verified endpoint at a fresh receiver, subscribed (WEBHOOK) to the business. */
  const subscribedPartner = async (eventTypes?: string[]) => {
    const p = await createPartner(h.url, ['business_subscriptions', 'webhooks'], `Hook ${++n}`);
    const { receiver, url } = await newReceiver();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
      json: { url, client_id: `client-${n}`, ...(eventTypes ? { event_types: eventTypes } : {}) },
    });
    const verified = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
    expect(verified.body.status).toBe('verified');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    const added = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: p.apiKey.api_key,
      json: { business_ids: [businessId] },
    });
    expect(added.status).toBe(200);
    return { ...p, receiver, url };
  };
  const emitLead = async () =>
    (await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: `lead-${++n}` } })).body;
  const deliveriesOf = async (partnerId: string) =>
    (await admin(h.url, 'GET', `/admin/v1/webhook-deliveries?partner_id=${partnerId}`)).body.deliveries;

  describe('verification', () => {
    it('verifies an endpoint that echoes the challenge, and asks again after a URL change', async () => {
      const p = await createPartner(h.url, ['webhooks'], 'Verify ok');
      const { receiver, url } = await newReceiver();
      const registered = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'abc' } });
      expect(registered.body).toMatchObject({ status: 'unverified', url, client_id: 'abc', secret: expect.stringMatching(/^whsec_/) });
      const verified = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
      expect(verified.body).toMatchObject({ status: 'verified', status_reason: null });
      const challenge = receiver.received[0];
      expect(challenge.method).toBe('GET');
      expect(new URL(challenge.url, 'http://x').searchParams.get('verification')).toMatch(/^[A-Za-z0-9]+$/);
      const moved = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
        json: { url: `${url}?v=2`, client_id: 'abc' },
      });
      expect(moved.body.status).toBe('unverified');
    });

    it('fails on 404, on a timeout and on any other answer, with the reason, and does not retry', async () => {
      const cases: Array<[string, Behaviour, RegExp]> = [
        ['404', (_r, res) => res.writeHead(404).end('no'), /HTTP 404/],
        ['timeout', () => {}, /no answer within/], // never answers: pbs gives up at its deadline
        [
          'extra key',
          (r, res) => res.end(JSON.stringify({ verification: new URL(r.url, 'http://x').searchParams.get('verification'), more: 1 })),
          /exactly one key/,
        ],
        ['wrong value', (_r, res) => res.end(JSON.stringify({ verification: 'nope' })), /does not echo/],
        ['not JSON', (_r, res) => res.end('hello'), /not JSON/],
      ];
      for (const [name, behaviour, reason] of cases) {
        const p = await createPartner(h.url, ['webhooks'], `Verify ${name}`);
        const { receiver, url } = await newReceiver(behaviour);
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'c' } });
        const r = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
        expect(r.body.status, name).toBe('failed');
        expect(r.body.status_reason, name).toMatch(reason);
        expect(receiver.received).toHaveLength(1);
      }
    });

    it('refuses private, link-local, metadata and embedded-IPv4 loopback addresses (real loopback is allowed in sandbox mode)', async () => {
      const p = await createPartner(h.url, ['webhooks'], 'Private');
      const embeddedLoopback = [
        'http://[64:ff9b::7f00:1]/',
        'http://[2002:7f00:1::]/',
        'http://[::ffff:0:127.0.0.1]/',
        'http://[::127.0.0.1]/',
      ];
      for (const url of [
        'http://10.1.2.3/hook',
        'http://169.254.169.254/latest',
        'http://192.168.1.1/',
        'http://[fe80::1]/',
        'ftp://example.com/',
        ...embeddedLoopback,
      ]) {
        const r = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'c' } });
        expect(r.status, url).toBe(400);
        expect(r.body.error.field).toBe('url');
      }
    });
  });

  describe('delivery', () => {
    it('POSTs the event envelope, signed so the receiver can verify it', async () => {
      const p = await subscribedPartner();
      const emitted = await emitLead();
      expect(emitted.message_id).toBe(`msg_${emitted.event_id}`);
      await h.pbs.deliverWebhooks();
      const [post] = p.receiver.posts();
      const body = JSON.parse(post.body);
      expect(body).toMatchObject({
        object: 'business',
        data: { id: businessId, updates: [{ event_type: 'NEW_EVENT', lead_id: expect.any(String), event_id: expect.any(String) }] },
      });
      expect(body.time).toMatch(/\+00:00$/);
      expect(post.headers['content-type']).toBe('application/json');
      expect(post.headers['webhook-id']).toBe(emitted.message_id);
      const secret = (await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/webhook`)).body.secret;
      expect(
        verifySignature(
          secret,
          emitted.message_id,
          Number(post.headers['webhook-timestamp']),
          post.body,
          String(post.headers['webhook-signature']),
        ),
      ).toBe(true);
      expect(
        verifySignature(
          secret,
          emitted.message_id,
          Number(post.headers['webhook-timestamp']),
          `${post.body} `,
          String(post.headers['webhook-signature']),
        ),
      ).toBe(false);
      const [delivery] = await deliveriesOf(p.partner.id);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 });
      expect(delivery.attempts_log[0]).toMatchObject({ status_code: 200, error: null });
    });

    it('reaches only partners subscribed to the business, with the event type on and a verified endpoint', async () => {
      const subscribed = await subscribedPartner();
      const otherTypes = await subscribedPartner(['NEW_REVIEW_EVENT']);
      const unsubscribed = await createPartner(h.url, ['webhooks'], 'Unsubscribed');
      const { receiver: quiet, url } = await newReceiver();
      await admin(h.url, 'PUT', `/admin/v1/partners/${unsubscribed.partner.id}/webhook`, { json: { url, client_id: 'q' } });
      await admin(h.url, 'POST', `/admin/v1/partners/${unsubscribed.partner.id}/webhook/verify`);
      const unverified = await subscribedPartner();
      await admin(h.url, 'PUT', `/admin/v1/partners/${unverified.partner.id}/webhook`, {
        json: { url: `${unverified.url}?changed=1`, client_id: 'u' },
      });

      await emitLead();
      await h.pbs.deliverWebhooks();
      expect(subscribed.receiver.posts()).toHaveLength(1);
      expect(otherTypes.receiver.posts()).toHaveLength(0);
      expect(quiet.posts()).toHaveLength(0);
      expect(unverified.receiver.posts()).toHaveLength(0);

      const license = await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/license-verifications`, {
        json: { license_verification_status: 'REJECTED', license_verification_failure_reason: 'NOT_FOUND', license_number: 'L-1' },
      });
      expect(license.status).toBe(201);
      await h.pbs.deliverWebhooks();
      const body = JSON.parse(subscribed.receiver.posts()[1].body);
      expect(body.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
      expect(body.data.updates[0]).toMatchObject({
        event_type: 'VERIFIED_LICENSE_UPDATE_EVENT',
        license_verification_status: 'REJECTED',
        license_verification_failure_reason: 'NOT_FOUND',
      });
    });

    it('retries after a 500 when the clock says so, and records every attempt', async () => {
      const p = await subscribedPartner();
      let calls = 0;
      p.receiver.behaviour = (_r, res) => res.writeHead(++calls === 1 ? 500 : 200).end('oops');
      await emitLead();
      await h.pbs.deliverWebhooks();
      let [d] = await deliveriesOf(p.partner.id);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
      const wait = Date.parse(d.next_attempt_at) - h.clock.now();
      expect(wait).toBeGreaterThanOrEqual(4500);
      expect(wait).toBeLessThanOrEqual(5500);
      await h.pbs.deliverWebhooks();
      expect(calls).toBe(1); // not due yet
      h.clock.advance(6000);
      await h.pbs.deliverWebhooks();
      [d] = await deliveriesOf(p.partner.id);
      expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(d.attempts_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
      expect(d.attempts_log[0].response_excerpt).toBe('oops');
    });

    it('keeps the first 500 characters of a long answer, whole characters only', async () => {
      const p = await subscribedPartner();
      // 3,000 two-byte characters in several chunks: the excerpt must not cut one in half.
      p.receiver.behaviour = (_r, res) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        for (let i = 0; i < 6; i++) res.write('é'.repeat(500));
        res.end();
      };
      await emitLead();
      await h.pbs.deliverWebhooks();
      const [d] = await deliveriesOf(p.partner.id);
      expect(d).toMatchObject({ status: 'pending', last_status_code: 500 });
      expect(d.attempts_log[0].response_excerpt).toBe('é'.repeat(500));
    });

    it('retries after a timeout and after a refused connection', async () => {
      const slow = await subscribedPartner();
      slow.receiver.behaviour = () => {}; // never answers
      const refused = await subscribedPartner();
      await refused.receiver.stop();
      receivers.splice(receivers.indexOf(refused.receiver), 1);
      await emitLead();
      await h.pbs.deliverWebhooks();
      const [s] = await deliveriesOf(slow.partner.id);
      expect(s).toMatchObject({ status: 'pending', last_status_code: null });
      expect(s.last_error).toMatch(/no answer within/);
      const [r] = await deliveriesOf(refused.partner.id);
      expect(r.status).toBe('pending');
      expect(r.last_error).toMatch(/ECONNREFUSED/);
    });

    it('honours Retry-After on 429 and 503', async () => {
      const p = await subscribedPartner();
      p.receiver.behaviour = (_r, res) => res.writeHead(503, { 'retry-after': '120' }).end();
      await emitLead();
      await h.pbs.deliverWebhooks();
      const [d] = await deliveriesOf(p.partner.id);
      expect(Date.parse(d.next_attempt_at) - h.clock.now()).toBeGreaterThanOrEqual(120_000);
    });

    it('gives up 24 hours after the event and keeps the message as failed', async () => {
      const p = await subscribedPartner();
      p.receiver.behaviour = (_r, res) => res.writeHead(500).end();
      await emitLead();
      for (let i = 0; i < 40; i++) {
        await h.pbs.deliverWebhooks();
        h.clock.advance(3 * 3600_000);
        const [d] = await deliveriesOf(p.partner.id);
        if (d.status !== 'pending') break;
      }
      const [d] = await deliveriesOf(p.partner.id);
      expect(d.status).toBe('failed');
      expect(d.last_error).toMatch(/gave up after 24 hours/);
      const attempts = p.receiver.posts().length;
      expect(attempts).toBeGreaterThan(5);
      h.clock.advance(24 * 3600_000);
      await h.pbs.deliverWebhooks();
      expect(p.receiver.posts()).toHaveLength(attempts);

      // The operator can send failed messages again.
      p.receiver.behaviour = (_r, res) => res.writeHead(204).end();
      const again = await admin(h.url, 'POST', '/admin/v1/webhook-deliveries/redeliver-failed', {
        json: { from: new Date(0).toISOString(), to: new Date(h.clock.now() + 1000).toISOString(), partner_id: p.partner.id },
      });
      expect(again.body).toEqual({ redelivered: 1 });
      await h.pbs.deliverWebhooks();
      expect((await deliveriesOf(p.partner.id))[0].status).toBe('delivered');
      const one = await admin(h.url, 'POST', `/admin/v1/webhook-deliveries/${d.id}/redeliver`);
      expect(one.body).toEqual({ redelivered: 1 });
      await h.pbs.deliverWebhooks();
      expect(p.receiver.posts()).toHaveLength(attempts + 2);
    });

    it('stops sending to an endpoint that answers 410 Gone', async () => {
      const p = await subscribedPartner();
      p.receiver.behaviour = (_r, res) => res.writeHead(410).end();
      await emitLead();
      await h.pbs.deliverWebhooks();
      expect((await deliveriesOf(p.partner.id))[0]).toMatchObject({ status: 'failed', last_status_code: 410 });
      expect((await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/webhook`)).body.status).toBe('gone');
      await emitLead();
      await h.pbs.deliverWebhooks();
      expect(p.receiver.posts()).toHaveLength(1);
    });

    it('signs with old and new secrets for 24 hours after a rotation', async () => {
      const p = await subscribedPartner();
      const before = (await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/webhook`)).body.secret;
      const after = (await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/rotate-secret`)).body.secret;
      await emitLead();
      await h.pbs.deliverWebhooks();
      const post = p.receiver.posts()[0];
      const args = [
        String(post.headers['webhook-id']),
        Number(post.headers['webhook-timestamp']),
        post.body,
        String(post.headers['webhook-signature']),
      ] as const;
      expect(String(post.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifySignature(before, ...args)).toBe(true);
      expect(verifySignature(after, ...args)).toBe(true);
      h.clock.advance(25 * 3600_000);
      await emitLead();
      await h.pbs.deliverWebhooks();
      expect(String(p.receiver.posts()[1].headers['webhook-signature']).split(' ')).toHaveLength(1);
    });

    it('is accepted by the standard verification libraries before and after the sandbox clock moves; the event time stays on the sandbox clock', async () => {
      const p = await subscribedPartner();
      const secret = (await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/webhook`)).body.secret;
      const libraries = [new StandardWebhook(secret), new SvixWebhook(secret)];
      const deliverAndVerify = async () => {
        await emitLead();
        await h.pbs.deliverWebhooks();
        const post = p.receiver.posts().at(-1)!;
        const headers = {
          'webhook-id': String(post.headers['webhook-id']),
          'webhook-timestamp': String(post.headers['webhook-timestamp']),
          'webhook-signature': String(post.headers['webhook-signature']),
        };
        // Each throws ("Message timestamp too new", "No matching signature found") when it refuses.
        for (const library of libraries) expect(library.verify(post.body, headers)).toMatchObject({ object: 'business' });
        return { post, timestamp: Number(headers['webhook-timestamp']) };
      };
      const before = await deliverAndVerify();
      const sandboxBefore = Date.parse((await admin(h.url, 'GET', '/admin/v1/clock')).body.now);
      expect((await admin(h.url, 'POST', '/admin/v1/clock/advance', { json: { minutes: 10 } })).status).toBe(200);
      const after = await deliverAndVerify();
      // Signed with real time: within the libraries' five minutes of this machine's clock.
      for (const { timestamp } of [before, after]) expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(300);
      // The envelope's own time is the sandbox's, ten minutes on.
      expect(Date.parse(JSON.parse(after.post.body).time) - sandboxBefore).toBeGreaterThanOrEqual(10 * 60_000);
      // A message replayed with an old timestamp is refused by both, as pbs webhook-listen says.
      const stale = String(Math.floor(Date.now() / 1000) - 600);
      const replay = { 'webhook-id': String(after.post.headers['webhook-id']), 'webhook-timestamp': stale };
      const signature = sign(secret, replay['webhook-id'], Number(stale), after.post.body);
      for (const library of libraries)
        expect(() => library.verify(after.post.body, { ...replay, 'webhook-signature': signature })).toThrow(/too old/);
    });

    it('pbs webhook-listen says what the libraries say: ok within five minutes, refused outside, whatever the sandbox clock', async () => {
      const lines: string[] = [];
      const p = await createPartner(h.url, ['business_subscriptions', 'webhooks'], `Listen ${++n}`);
      const registered = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
        json: { url: 'http://127.0.0.1:9/placeholder', client_id: `client-${n}` },
      });
      const listener = await listenForWebhooks({ port: 0, host: '127.0.0.1', secret: registered.body.secret, print: (l) => lines.push(l) });
      try {
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url: listener.url, client_id: `client-${n}` } });
        expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
        await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
          token: p.apiKey.api_key,
          json: { business_ids: [businessId] },
        });
        await admin(h.url, 'POST', '/admin/v1/clock/advance', { json: { minutes: 10 } });
        await emitLead();
        await h.pbs.deliverWebhooks();
        await eventuallyPasses(() => expect(lines.filter((l) => l.startsWith('POST'))).toHaveLength(1));
        expect(lines.at(-1)).toMatch(/^POST msg_\S+ signature ok: NEW_EVENT for business/);
        // A delivery stamped ten minutes ago, correctly signed: refused for its age, not its signature.
        const body = '{"object":"business"}';
        const stale = Math.floor(Date.now() / 1000) - 600;
        await fetch(listener.url, {
          method: 'POST',
          headers: {
            'webhook-id': 'msg_old',
            'webhook-timestamp': String(stale),
            'webhook-signature': sign(registered.body.secret, 'msg_old', stale, body),
          },
          body,
        });
        await eventuallyPasses(() => expect(lines.filter((l) => l.startsWith('POST'))).toHaveLength(2));
        expect(lines.at(-1)).toMatch(
          /^POST msg_old TIMESTAMP TOO OLD \(receivers refuse a webhook-timestamp more than 300 s from their clock\)/,
        );
      } finally {
        await listener.close();
      }
    });

    it('lets several deliverers share the queue without sending an attempt twice', async () => {
      const p = await subscribedPartner();
      for (let i = 0; i < 60; i++) await emitLead();
      const config = testConfig({ PBS_WEBHOOK_TIMEOUT_MS: '2000' }).webhooks;
      const others = [0, 1].map(
        () => new WebhookDeliverer(h.pbs.ctx.database, h.clock, config, { allowPrivate: false, allowLoopback: true }),
      );
      try {
        await Promise.all([h.pbs.deliverWebhooks(), ...others.map((d) => d.runDue())]);
      } finally {
        await Promise.all(others.map((d) => d.stop()));
      }
      const ids = p.receiver.posts().map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
    });
  });
});

describe.each(dialects)('a slow endpoint on %s', (dialect) => {
  it('cannot starve the others: its in-flight deliveries are capped', async () => {
    const h = await startPbs(dialect, {
      env: { PBS_WEBHOOK_TIMEOUT_MS: '5000', PBS_WEBHOOK_ENDPOINT_CONCURRENCY: '2', PBS_WEBHOOK_MAX_IN_FLIGHT: '8' },
    });
    const slow = new Receiver();
    const fast = new Receiver();
    try {
      const businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Shared' }) })).body.id;
      const held: Array<() => void> = [];
      // The slow receiver holds every POST until the test lets go.
      slow.behaviour = (req, res) => {
        const token = new URL(req.url, 'http://x').searchParams.get('verification');
        if (req.method === 'GET' && token) return void res.end(JSON.stringify({ verification: token }));
        held.push(() => res.writeHead(200).end());
      };
      fast.behaviour = Receiver.echoing();
      for (const [name, receiver] of [
        ['slow', slow],
        ['fast', fast],
      ] as const) {
        const p = await createPartner(h.url, ['webhooks'], name);
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url: await receiver.start(), client_id: name } });
        expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
        await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
          token: p.apiKey.api_key,
          json: { business_ids: [businessId] },
        });
      }
      for (let i = 0; i < 20; i++) await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: {} });

      h.pbs.relay.start();
      h.pbs.deliverer.start();
      // Every message reaches the fast partner while the slow one has at most its cap in flight.
      await eventually(
        () => fast.posts().length,
        (n) => n >= 20,
        'every message at the fast partner',
      );
      expect(fast.posts()).toHaveLength(20);
      expect(slow.posts().length).toBeLessThanOrEqual(2);
      // Let the slow partner's answers go: it gets everything too.
      await eventually(
        () => (held.splice(0).forEach((release) => release()), slow.posts().length),
        (n) => n >= 20,
        'every message at the slow partner',
        10,
      );
      held.splice(0).forEach((release) => release());
      expect(slow.posts()).toHaveLength(20);
    } finally {
      await h.close();
      await Promise.all([slow.stop(), fast.stop()]);
    }
  });
});
