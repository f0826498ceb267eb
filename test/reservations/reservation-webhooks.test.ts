import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

const RESERVATION_TYPES = ['RESERVATION_CREATED_EVENT', 'RESERVATION_CANCELED_BY_GUEST_EVENT', 'RESERVATION_CANCELED_BY_RESTAURANT_EVENT'];

/**
 * Issue 13 §3: reservation changes reach the partner that made the reservation, through the one
 * event path (outbox → relay → deliveries), as opt-in webhook types in the docs/contract/webhooks.md §6.2 envelope.
 */
describe.each(dialects)('reservation webhooks on %s', (dialect) => {
  let h: Harness;
  let biz: { id: string; alias: string };
  const receivers: Receiver[] = [];
  let n = 0;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    biz = await createRestaurant(h.url, {}, 'Webhooked Bistro');
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  /** A partner with a verified endpoint receiving `eventTypes` (default: the endpoint's defaults). */
  const partnerWithEndpoint = async (eventTypes?: string[], interfaces = ['reservations', 'webhooks', 'business_subscriptions']) => {
    const p = await createPartner(h.url, interfaces, `Hooked ${++n}`);
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    receivers.push(receiver);
    const url = await receiver.start();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
      json: { url, client_id: `c${n}`, ...(eventTypes ? { event_types: eventTypes } : {}) },
    });
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
    return { ...p, receiver };
  };
  const book = async (p: Awaited<ReturnType<typeof createPartner>>, time: string) => {
    const slot = { date: '2031-05-07', time, covers: '2', unique_id: `guest-${++n}` };
    const held = await hold(h.url, p.apiKey.api_key, biz.id, slot);
    const r = await reserve(h.url, p.apiKey.api_key, biz.id, { ...slot, hold_id: held.body.hold_id });
    expect(r.status, r.text).toBe(200);
    return { id: r.body.reservation_id as string, slot, confirmation: new URL(r.body.confirmation_url).pathname };
  };
  const updates = (receiver: Receiver) => receiver.posts().map((post) => JSON.parse(post.body));

  it('tells the partner of a reservation made, canceled by the guest on the page and canceled by the restaurant; nobody else', async () => {
    const owner = await partnerWithEndpoint([...RESERVATION_TYPES, 'NEW_EVENT']);
    // Another partner, subscribed to the restaurant and opted in to every type, hears nothing of them.
    const bystander = await partnerWithEndpoint([...RESERVATION_TYPES, 'NEW_EVENT']);
    await admin(h.url, 'PUT', `/admin/v1/partners/${bystander.partner.id}/businesses/${biz.id}`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: bystander.apiKey.api_key,
      json: { business_ids: [biz.id] },
    });

    const first = await book(owner, '18:00');
    const second = await book(owner, '20:30');
    await h.pbs.deliverWebhooks();
    const made = updates(owner.receiver);
    expect(made).toHaveLength(2);
    // Messages may arrive in any order (spec, Events 6): find each by its reservation.
    const about = (messages: any[], id: string) => messages.filter((m) => m.data.updates[0].reservation_id === id);
    expect(about(made, first.id)[0]).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
      object: 'business',
      data: {
        id: biz.id,
        updates: [
          {
            event_type: 'RESERVATION_CREATED_EVENT',
            event_id: expect.any(String),
            reservation_id: first.id,
            date: '2031-05-07',
            time: '18:00',
            covers: 2,
            unique_id: first.slot.unique_id,
            status: 'ACTIVE',
          },
        ],
      },
    });
    expect(JSON.stringify(made)).not.toContain('Lovelace'); // no guest details

    const page = await call(h.url, 'GET', first.confirmation);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1];
    await fetch(`${h.url}${first.confirmation}/cancel`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ token }) });
    await admin(h.url, 'POST', `/admin/v1/reservations/${second.id}/cancel`);
    await h.pbs.deliverWebhooks();
    const all = updates(owner.receiver);
    expect(all).toHaveLength(4);
    expect(about(all, first.id).map((m) => m.data.updates[0])).toContainEqual(
      expect.objectContaining({ event_type: 'RESERVATION_CANCELED_BY_GUEST_EVENT', status: 'CANCELED', source: 'CONFIRMATION_PAGE' }),
    );
    expect(about(all, second.id).map((m) => m.data.updates[0])).toContainEqual(
      expect.objectContaining({ event_type: 'RESERVATION_CANCELED_BY_RESTAURANT_EVENT', status: 'CANCELED', source: 'RESTAURANT' }),
    );
    expect(new Set(owner.receiver.posts().map((p) => p.headers['webhook-id'])).size).toBe(4);
    expect(bystander.receiver.posts()).toEqual([]);
  });

  it('sends reservation types only to endpoints that opt in, and nothing to a partner without the webhooks interface', async () => {
    const defaults = await partnerWithEndpoint();
    const registered = (await admin(h.url, 'GET', `/admin/v1/partners/${defaults.partner.id}/webhook`)).body;
    expect(registered.event_types).not.toContain('RESERVATION_CREATED_EVENT');
    await book(defaults, '17:00');
    const noInterface = await partnerWithEndpoint(RESERVATION_TYPES, ['reservations']);
    await book(noInterface, '17:30');
    await h.pbs.deliverWebhooks();
    expect(defaults.receiver.posts()).toEqual([]);
    expect(noInterface.receiver.posts()).toEqual([]);
  });

  it('writes each event once, in the change’s transaction, and relays it once', async () => {
    const owner = await partnerWithEndpoint(RESERVATION_TYPES);
    await book(owner, '19:15');
    const pending = await h.database.db.selectFrom('domain_events').select('id').where('relayed_at', 'is', null).execute();
    expect(pending.length).toBeGreaterThan(0);
    expect(await h.pbs.relay.runDue()).toBe(pending.length);
    expect(await h.pbs.relay.runDue()).toBe(0);
    await h.pbs.deliverWebhooks();
    expect(owner.receiver.posts()).toHaveLength(1);
  });
});
