import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installGuards } from '../../src/platform/http/guards.js';
import { declarationProblem } from '../../src/platform/http/route-declaration.js';
import {
  admin,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  sampleBusiness,
  startPbs,
  type Harness,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/**
 * Issue 13 §1: partner A once added B's business through the allow-list, subscribed to it and
 * received B's lead webhook. Links are now checked on every route that acts for a business.
 */
describe.each(dialects)('partner ↔ business links on %s', (dialect) => {
  let h: Harness;
  let a: Awaited<ReturnType<typeof createPartner>>;
  let b: Awaited<ReturnType<typeof createPartner>>;
  let ofA: string;
  let ofB: string;
  const receivers: Receiver[] = [];
  const interfaces = ['business_subscriptions', 'webhooks', 'listing_management'];

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '1000' } });
    a = await createPartner(h.url, interfaces, 'Partner A');
    b = await createPartner(h.url, interfaces, 'Partner B');
    ofA = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'A Only' }) })).body.id;
    ofB = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'B Only' }) })).body.id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${a.partner.id}/businesses/${ofA}`);
    await admin(h.url, 'PUT', `/admin/v1/partners/${b.partner.id}/businesses/${ofB}`);
    for (const p of [a, b]) {
      for (const name of interfaces)
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/${name}`, { json: { per_second: 1000 } });
      const receiver = new Receiver();
      receiver.behaviour = Receiver.echoing();
      receivers.push(receiver);
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
        json: { url: await receiver.start(), client_id: p.partner.name },
      });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
    }
  });
  afterAll(async () => {
    await h.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const listed = async (p: typeof a, type: string) =>
    (
      await call(h.url, 'GET', `/v3/businesses/subscriptions?subscription_type=${type}`, { token: p.apiKey.api_key })
    ).body.subscriptions.map((s: { business_id: string }) => s.business_id);

  it("refuses another partner's business on the allow-list and listing management: 403, nothing written", async () => {
    for (const ids of [[ofB], [ofA, ofB], [ofA, 'no-such-business']]) {
      const r = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
        token: a.apiKey.api_key,
        json: { business_ids: ids },
      });
      expect(r.status, JSON.stringify(ids)).toBe(403);
      expect(r.body.error.code).toBe('AUTHORIZATION_ERROR');
      expect(r.body.error.field).toBe('business_ids');
      const lm = await call(h.url, 'POST', '/listing_management/businesses/add/v1', {
        basic: [a.basic.username, a.basic.password],
        json: { business_ids: ids },
      });
      expect(lm.status).toBe(403);
      expect(lm.body.error.code).toBe('AUTHORIZATION_ERROR');
    }
    expect(await listed(a, 'WEBHOOK')).toEqual([]);
    expect(await listed(a, 'LISTING_MANAGEMENT')).toEqual([]);
    const own = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: a.apiKey.api_key,
      json: { business_ids: [ofA] },
    });
    expect(own.body).toEqual({ whitelist_business_ids_count: 1 });
  });

  it('records unlinked ids of an asynchronous subscription as refused, subscribes the rest, and sends B’s events only to B', async () => {
    const r = await call(h.url, 'POST', '/v3/businesses/subscriptions', {
      token: a.apiKey.api_key,
      json: { subscription_types: ['WEBHOOK'], business_ids: [ofA, ofB, 'no-such-business'] },
    });
    expect(r.status).toBe(202);
    await h.pbs.ctx.tasks.runDue();
    const [request] = (await admin(h.url, 'GET', `/admin/v1/partners/${a.partner.id}/subscription-requests`)).body.requests;
    expect(request).toMatchObject({ status: 'COMPLETED', refused_business_ids: [ofB], skipped_business_ids: ['no-such-business'] });
    expect(await listed(a, 'WEBHOOK')).toEqual([ofA]);

    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: b.apiKey.api_key, json: { business_ids: [ofB] } });
    await admin(h.url, 'POST', `/admin/v1/businesses/${ofB}/events/leads`, { json: { lead_id: 'lead-of-b' } });
    await h.pbs.deliverWebhooks();
    const [toA, toB] = receivers;
    expect(toA.posts().filter((p) => p.body.includes('lead-of-b'))).toEqual([]);
    expect(toB.posts().filter((p) => p.body.includes('lead-of-b'))).toHaveLength(1);
  });

  it('drops a partner’s subscriptions to a business when the link goes, and sends it nothing more', async () => {
    const extra = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Soon Unlinked' }) })).body.id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${a.partner.id}/businesses/${extra}`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: a.apiKey.api_key, json: { business_ids: [extra] } });
    await call(h.url, 'POST', '/listing_management/businesses/add/v1', {
      basic: [a.basic.username, a.basic.password],
      json: { business_ids: [extra] },
    });
    expect(await listed(a, 'WEBHOOK')).toContain(extra);
    expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${a.partner.id}/businesses/${extra}`)).status).toBe(204);
    expect(await listed(a, 'WEBHOOK')).not.toContain(extra);
    expect(await listed(a, 'LISTING_MANAGEMENT')).not.toContain(extra);
    // Nor can it remove what it is no longer linked to (there is nothing left to remove).
    const remove = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/remove', {
      token: a.apiKey.api_key,
      json: { business_ids: [extra] },
    });
    expect(remove.status).toBe(403);
  });

  it('sends nothing for a subscription made before links were enforced, while unlinked', async () => {
    await h.database.db
      .insertInto('business_subscriptions')
      .values({ partner_id: a.partner.id, subscription_type: 'WEBHOOK', business_id: ofB, subscribed_at: h.clock.now() })
      .execute();
    await admin(h.url, 'POST', `/admin/v1/businesses/${ofB}/events/leads`, { json: { lead_id: 'legacy-lead' } });
    await h.pbs.deliverWebhooks();
    expect(receivers[0].posts().filter((p) => p.body.includes('legacy-lead'))).toEqual([]);
    expect(receivers[1].posts().filter((p) => p.body.includes('legacy-lead'))).toHaveLength(1);
  });
});

describe('route security declarations', () => {
  it('names what is wrong with a declaration, or nothing', () => {
    const partner = (business: unknown) => ({ partner: { interface: 'waitlist', scheme: 'bearer', business } as never });
    expect(declarationProblem('/v3/things', undefined)).toMatch(/no authentication/);
    expect(declarationProblem('/admin/v1/things', {})).toMatch(/no operator role/);
    expect(declarationProblem('/admin/v1/things', { operator: 'owner' })).toMatch(/no known operator role/);
    expect(declarationProblem('/v3/things', { operator: 'viewer' })).toMatch(/outside \/admin/);
    expect(declarationProblem('/listing_management/x/v1', undefined)).toMatch(/no authentication/);
    expect(declarationProblem('/program/:id/pause/v1', undefined)).toMatch(/no authentication/);
    expect(declarationProblem('/v1/reseller/status/:job_id', undefined)).toMatch(/no authentication/);
    expect(declarationProblem('/healthz', undefined)).toBeUndefined();
    for (const role of ['viewer', 'support', 'partner_manager', 'admin'])
      expect(declarationProblem('/admin/v1/things', { operator: role })).toBeUndefined();
    expect(declarationProblem('/v3/x/:business_id', partner(undefined))).toMatch(/no business scope/);
    expect(declarationProblem('/v3/x/:business_id', partner({}))).toMatch(/exactly one/);
    expect(declarationProblem('/v3/x/:business_id', partner({ unscoped: '' }))).toMatch(/non-empty/);
    expect(declarationProblem('/v3/x/:id', partner({ param: 'business_id' }))).toMatch(/no path parameter/);
    expect(declarationProblem('/v3/x', partner({ bodyList: 'business_ids' }))).toMatch(/positive max/);
    expect(declarationProblem('/v3/x/:business_id', partner({ param: 'business_id' }))).toBeUndefined();
    expect(declarationProblem('/v3/x', partner({ unscoped: 'why' }))).toBeUndefined();
    expect(
      declarationProblem('/v3/x', { partner: { interface: 'teleport', scheme: 'bearer', business: { unscoped: 'x' } } as never }),
    ).toMatch(/interface/);
  });

  it('refuses to start with a partner or operator route that declares no authentication', async () => {
    const guards = {
      verifier: {} as never,
      links: {} as never,
      rateLimiter: {} as never,
      idempotency: {} as never,
      publicLimiter: {} as never,
      authFailures: {} as never,
      defaultLimits: { perSecond: 1, perDay: 1 },
      operators: { bootstrapMatches: async () => false, publicOrigin: 'http://localhost' },
      audit: { wallNow: () => 0, writeAlone: async () => {} },
      portalLimiter: {} as never,
      publicOrigin: 'http://localhost',
    };
    for (const [url, config] of [
      ['/v3/forgotten', undefined],
      ['/admin/v1/forgotten', undefined],
      ['/v3/businesses/:business_id/forgotten', { partner: { interface: 'waitlist', scheme: 'bearer' } }],
    ] as const) {
      const app = Fastify();
      installGuards(app, guards);
      expect(() => app.get(url, { config: config as never }, async () => ({})), url).toThrow(/declares no/);
      await app.close();
    }
  });
});

/** With confirmed links kept (as in production), a route for one business answers from them, and an unlink ends that at once. */
describe.each(dialects)('a business route with links kept on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_AUTH_CACHE_MS: '60000' } });
  });
  afterAll(() => h.close());

  it('admits a linked business by id or alias, again and again, and refuses it once unlinked', async () => {
    const p = await createPartner(h.url, ['private_reviews']);
    const business = await linkedBusiness(h.url, [p.partner.id]);
    const other = await linkedBusiness(h.url, []);
    const reviews = (id: string) => call(h.url, 'GET', `/v3/private/businesses/${id}/reviews`, { token: p.apiKey.api_key });
    for (const id of [business.id, business.id, business.alias, business.alias]) {
      const r = await reviews(id);
      expect(r.status, r.text).toBe(200);
    }
    for (let i = 0; i < 2; i++) expectCode(await reviews(other.id), 403, 'AUTHORIZATION_ERROR');
    await admin(h.url, 'DELETE', `/admin/v1/partners/${p.partner.id}/businesses/${business.id}`);
    expectCode(await reviews(business.id), 403, 'AUTHORIZATION_ERROR');
    expectCode(await reviews(business.alias), 403, 'AUTHORIZATION_ERROR');
  });
});
