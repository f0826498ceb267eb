import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  call,
  createPartner,
  dialects,
  expectCode,
  portalSession,
  sampleBusiness,
  startPbs,
  type Harness,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/** Issue 26 "Webhooks, self-served": a partner's endpoint and deliveries in its portal session, and no one else's. */
describe.each(dialects)('webhooks in the partner portal on %s', (dialect) => {
  let h: Harness;
  let businessId: string;
  const receivers: Receiver[] = [];
  let n = 0;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '3000', PBS_WEBHOOK_RETRY_SCHEDULE: '1' } });
    businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Self-served' }) })).body.id;
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  /** A partner subscribed to the business, its endpoint at a receiver answering POSTs with `status`; and its portal session. */
  const hookedPartner = async (status: number) => {
    const p = await createPartner(h.url, ['business_subscriptions', 'webhooks'], `Self ${++n}`);
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing(status);
    receivers.push(receiver);
    const url = await receiver.start();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: `c-${n}` } });
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: p.apiKey.api_key, json: { business_ids: [businessId] } });
    return { ...p, receiver: Object.assign(receiver, { url }), headers: await portalSession(h, p.partner.id) };
  };

  it('verifies its endpoint, rotates its secret, reads its deliveries with attempts, and replays a failed one', async () => {
    const p = await hookedPartner(500);
    const other = await hookedPartner(200);
    const verified = await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/verify', { headers: p.headers });
    expect(verified.body).toMatchObject({ partner_id: p.partner.id, status: 'verified' });
    await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/verify', { headers: other.headers });
    const before = (await call(h.url, 'GET', '/portal/v1/webhooks/endpoint', { headers: p.headers })).body.secret;
    const rotated = await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/rotate-secret', { headers: p.headers });
    expect(rotated.body.secret).not.toBe(before);
    expect(rotated.body.previous_secret_valid_until).toEqual(expect.any(String));

    await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: 'lead-self' } });
    await h.pbs.deliverWebhooks();
    // The only retry is 1 s later (pbs time); past the 24-hour window the delivery has failed.
    h.clock.advance(25 * 3_600_000);
    await h.pbs.deliverWebhooks();
    const mine = (await call(h.url, 'GET', '/portal/v1/webhooks/deliveries', { headers: p.headers })).body.deliveries;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ partner_id: p.partner.id, status: 'failed' });
    expect(mine[0].attempts_log[0]).toMatchObject({ status_code: 500 });
    const theirs = (await call(h.url, 'GET', '/portal/v1/webhooks/deliveries', { headers: other.headers })).body.deliveries;
    expect(theirs.map((d: { partner_id: string }) => d.partner_id)).toEqual([other.partner.id]);

    // One delivery whole: the message as sent (what the receiver got) and where it goes; only its own partner's.
    const whole = await call(h.url, 'GET', `/portal/v1/webhooks/deliveries/${mine[0].id}`, { headers: p.headers });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body).toMatchObject({ id: mine[0].id, endpoint_url: p.receiver.url, status: 'failed' });
    expect(whole.body.payload).toEqual(JSON.parse(p.receiver.posts()[0].body));
    expect((await admin(h.url, 'GET', `/admin/v1/webhook-deliveries/${mine[0].id}`)).body.payload).toEqual(whole.body.payload);
    expectCode(await call(h.url, 'GET', `/portal/v1/webhooks/deliveries/${mine[0].id}`, { headers: other.headers }), 404, 'NOT_FOUND');
    expectCode(await admin(h.url, 'GET', '/admin/v1/webhook-deliveries/no-such-delivery'), 404, 'NOT_FOUND');

    // Another partner cannot replay it; its own partner can, and the receiver hears it again.
    expectCode(
      await call(h.url, 'POST', `/portal/v1/webhooks/deliveries/${mine[0].id}/redeliver`, { headers: other.headers }),
      404,
      'NOT_FOUND',
    );
    const posts = p.receiver.posts().length;
    expect((await call(h.url, 'POST', `/portal/v1/webhooks/deliveries/${mine[0].id}/redeliver`, { headers: p.headers })).body).toEqual({
      redelivered: 1,
    });
    await h.pbs.deliverWebhooks();
    expect(p.receiver.posts().length).toBe(posts + 1);
    const period = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };
    expect(
      (await call(h.url, 'POST', '/portal/v1/webhooks/deliveries/redeliver-failed', { headers: other.headers, json: period })).body,
    ).toEqual({
      redelivered: 0,
    });
  });

  it('answers 404 without an endpoint and refuses a change from another origin', async () => {
    const p = await createPartner(h.url, ['webhooks'], 'No endpoint');
    const headers = await portalSession(h, p.partner.id);
    expectCode(await call(h.url, 'GET', '/portal/v1/webhooks/endpoint', { headers }), 404, 'NOT_FOUND');
    expectCode(
      await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/rotate-secret', {
        headers: { ...headers, origin: 'https://elsewhere.example' },
      }),
      403,
      'AUTHORIZATION_ERROR',
    );
  });

  it('sends a test event of a type the endpoint receives, to that partner only, marked as a test', async () => {
    const p = await hookedPartner(200);
    const other = await hookedPartner(200);
    for (const q of [p, other]) await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/verify', { headers: q.headers });
    const sent = await call(h.url, 'POST', '/portal/v1/webhooks/test-events', {
      headers: p.headers,
      json: { event_type: 'NEW_REVIEW_EVENT', business_id: businessId },
    });
    expect(sent.status, sent.text).toBe(202);
    await h.pbs.deliverWebhooks();
    const [post] = p.receiver.posts().filter((r) => r.headers['webhook-id'] === sent.body.message_id);
    const body = JSON.parse(post.body);
    expect(body.data).toMatchObject({ id: businessId, updates: [{ event_type: 'NEW_REVIEW_EVENT', test: true, rating: 4 }] });
    expect(other.receiver.posts().some((r) => r.headers['webhook-id'] === sent.body.message_id)).toBe(false);
    // A type the endpoint does not receive (reservation events are opt-in), and an unknown type.
    for (const event_type of ['RESERVATION_CREATED_EVENT', 'NOPE']) {
      const r = await call(h.url, 'POST', '/portal/v1/webhooks/test-events', { headers: p.headers, json: { event_type } });
      expectCode(r, 400, 'VALIDATION_ERROR');
    }
  });

  it('duplicates and reorders deliveries when the partner switches it on (sandbox)', async () => {
    const p = await hookedPartner(200);
    await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/verify', { headers: p.headers });
    const on = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint/duplicate-and-reorder', { headers: p.headers, json: { on: true } });
    expect(on.body.duplicate_and_reorder).toBe(true);
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(h.url, 'POST', '/portal/v1/webhooks/test-events', { headers: p.headers, json: { event_type: 'NEW_EVENT' } });
      sent.push(r.body.message_id);
    }
    await h.pbs.deliverWebhooks();
    // Each delivery waits up to 2 s (pbs time) before its first attempt.
    h.clock.advance(2_000);
    await h.pbs.deliverWebhooks();
    const ids = p.receiver.posts().map((r) => r.headers['webhook-id']);
    for (const id of sent)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(2);
    const deliveries = (await call(h.url, 'GET', '/portal/v1/webhooks/deliveries', { headers: p.headers })).body.deliveries;
    expect(deliveries.filter((d: { status: string }) => d.status === 'delivered')).toHaveLength(6);
    const off = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint/duplicate-and-reorder', { headers: p.headers, json: { on: false } });
    expect(off.body.duplicate_and_reorder).toBe(false);
  });
});
