import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverySlots } from '../../src/webhooks/delivery-slots.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { eventually } from '../support/wait.js';

const DEAD = 8;
const EVENTS = 40;

/**
 * Issue 39 §4: eight receivers that never answered pushed a healthy partner's deliveries from
 * p50 0 s to 17 s: each dead endpoint took a pool's worth of slots for the whole timeout. Now a
 * partner not yet proven (or failing) has one attempt under way at a time, and failing ones
 * share a quarter of the slots, so another partner's deliveries go out meanwhile.
 */
describe.each(dialects)('webhook delivery beside dead receivers on %s', (dialect) => {
  let h: Harness;
  const held: http.ServerResponse[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // The dead receivers hold every POST until the test lets go: no attempt ends meanwhile.
    h = await startPbs(dialect, { env: { PBS_TASKS: '1', PBS_WEBHOOK_TIMEOUT_MS: '600000', PBS_WEBHOOK_POLL_MS: '50' } });
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.writeHead(200).end();
    await h.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  it("delivers a healthy partner's messages while dead receivers hold theirs, and theirs once they answer", async () => {
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Fair Diner' }) })).body.id;
    const partnerWith = async (name: string, receiver: Receiver) => {
      const p = await createPartner(h.url, ['business_subscriptions', 'webhooks'], name);
      receivers.push(receiver);
      const url = await receiver.start();
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: name } });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${business}`);
      const subscribed = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
        token: p.apiKey.api_key,
        json: { business_ids: [business] },
      });
      expect(subscribed.status, subscribed.text).toBe(200);
      return receiver;
    };
    const dead: Receiver[] = [];
    for (let i = 0; i < DEAD; i++) {
      const receiver = new Receiver();
      receiver.behaviour = (req, res) => {
        const token = new URL(req.url, 'http://x').searchParams.get('verification');
        if (req.method === 'GET' && token) return void res.end(JSON.stringify({ verification: token }));
        held.push(res);
      };
      dead.push(await partnerWith(`dead-${i}`, receiver));
    }
    const healthy = new Receiver();
    healthy.behaviour = Receiver.echoing();
    await partnerWith('healthy', healthy);

    for (let i = 0; i < EVENTS; i++)
      expect((await admin(h.url, 'POST', `/admin/v1/businesses/${business}/events/leads`, { json: {} })).status).toBe(201);

    // Every healthy delivery arrives while every dead receiver still holds what it got.
    await eventually(
      () => healthy.posts().length,
      (n) => n === EVENTS,
      `the healthy partner's ${EVENTS} messages`,
    );
    expect(held.length).toBeLessThanOrEqual(DEAD);
    for (const receiver of dead) expect(receiver.posts().length).toBeLessThanOrEqual(1);

    // The dead receivers come back: their messages follow.
    for (const receiver of dead)
      receiver.behaviour = (_req, res) => {
        res.writeHead(200).end();
      };
    for (const res of held.splice(0)) res.writeHead(200).end();
    await eventually(
      () => dead.map((r) => new Set(r.posts().map((post) => post.headers['webhook-id'])).size),
      (counts) => counts.every((n) => n === EVENTS),
      'every message of the receivers that came back',
    );
  });
});

describe('delivery slots', () => {
  const slots = () => new DeliverySlots({ maxInFlight: 16, provenCap: 8, failingBudget: 4 });
  const rows = (partner: string, n: number) => Array.from({ length: n }, () => ({ partner_id: partner }));

  it('tries a new partner once, then gives a proven one its cap', () => {
    const s = slots();
    const first = s.admit([...rows('a', 5), ...rows('b', 2)]);
    expect(first.admitted.map((d) => d.partner_id)).toEqual(['a', 'b']);
    expect(first.handedBack).toHaveLength(5);
    expect(s.excluded().sort()).toEqual(['a', 'b']);
    s.noteOutcome('a', true);
    s.release('a');
    expect(s.admit(rows('a', 10)).admitted).toHaveLength(8);
    // Above half its cap, a proven partner waits for the next claim.
    expect(s.excluded()).toContain('a');
  });

  it('keeps failing partners to one attempt each and a budget in all, whatever their number', () => {
    const s = slots();
    for (let i = 0; i < 10; i++) {
      s.noteOutcome(`dead-${i}`, false);
    }
    const claimed = s.admit(Array.from({ length: 10 }, (_, i) => ({ partner_id: `dead-${i}` })));
    expect(claimed.admitted).toHaveLength(4);
    // Budget full: every failing partner is left out of claims; others are not.
    expect(s.excluded()).toEqual(expect.arrayContaining(Array.from({ length: 10 }, (_, i) => `dead-${i}`)));
    expect(s.admit(rows('healthy', 1)).admitted).toHaveLength(1);
    expect(s.room).toBe(16 - 5);
    // A failing partner that answers again is proven, and its attempt leaves the failing budget.
    s.noteOutcome('dead-0', true);
    expect(s.admit(rows('dead-9', 1)).admitted).toHaveLength(1);
  });
});
