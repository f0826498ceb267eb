import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerInterfaces } from '../../src/platform/auth/principal.js';
import {
  admin,
  businessUserToken,
  call,
  createPartner,
  dialects,
  portalSession,
  startPbs,
  type CallOptions,
  type Harness,
} from '../support/harness.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

/** Operations anyone may call: a new unauthenticated operation must be added here on purpose. */
const PUBLIC = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'POST /oauth2/token',
  'POST /oauth2/token/v3',
  'POST /oauth2/revoke',
  'GET /oauth2/authorize',
  'POST /oauth2/authorize',
  'GET /portal/sign-in',
  'POST /portal/sign-in',
  'POST /portal/sign-in/link',
  'POST /operator/sign-in',
  'POST /operator/setup/begin',
  'POST /operator/setup/finish',
  'GET /operator/sign-in-methods',
]);

type Scheme = 'bearer' | 'basic' | 'business_user';

interface Operation {
  method: string;
  path: string;
  partner?: { interface: string; scheme: Scheme; business: Record<string, unknown> };
  admin: boolean;
  /** A partner portal route (a session cookie). */
  portal: boolean;
  requestBody?: { content?: Record<string, { schema?: { required?: string[] } }> };
}

/**
 * Issue 13 §1: every operation of the served document, called (a) without credentials, (b) with
 * another partner's credentials, (c) by a partner without the operation's interface and (d) for a
 * business not linked to the caller, answers the catalogue's status and code. The expectations
 * come from each operation's declaration (`x-pbs-partner`), so new routes are covered as they come.
 */
describe.each(dialects)('every operation of /openapi.json on %s', (dialect) => {
  let h: Harness;
  let owner: Awaited<ReturnType<typeof createPartner>>;
  let other: Awaited<ReturnType<typeof createPartner>>;
  let disabled: Awaited<ReturnType<typeof createPartner>>;
  let ownersBusiness: string;
  let othersBusiness: string;
  let reservationId: string;
  let operations: Operation[];
  /** A lead of each business, for the Leads API's paths. */
  const leadOf = new Map<string, string>();
  /** Each partner's business user token: its user manages the partner's own business. */
  const userTokens = new Map<string, string>();

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    owner = await createPartner(h.url, [...partnerInterfaces], 'Owner');
    other = await createPartner(h.url, [...partnerInterfaces], 'Other');
    disabled = await createPartner(h.url, [], 'Disabled');
    for (const p of [owner, other]) {
      for (const name of partnerInterfaces)
        await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/${name}`, { json: { per_second: 100000 } });
    }
    ownersBusiness = (await createRestaurant(h.url, {}, 'Owner Bistro')).id;
    othersBusiness = (await createRestaurant(h.url, {}, 'Other Bistro')).id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${owner.partner.id}/businesses/${ownersBusiness}`);
    await admin(h.url, 'PUT', `/admin/v1/partners/${other.partner.id}/businesses/${othersBusiness}`);
    const slot = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'matrix-guest' };
    const held = await hold(h.url, owner.apiKey.api_key, ownersBusiness, slot);
    reservationId = (await reserve(h.url, owner.apiKey.api_key, ownersBusiness, { ...slot, hold_id: held.body.hold_id })).body
      .reservation_id;
    expect(reservationId).toBeTruthy();
    for (const business of [ownersBusiness, othersBusiness])
      leadOf.set(business, (await h.pbs.services.leads.conversations.emit(business, {})).lead_id);
    for (const [p, business] of [
      [owner, ownersBusiness],
      [other, othersBusiness],
      [disabled, ownersBusiness],
    ] as const) {
      const user = (
        await admin(h.url, 'POST', '/admin/v1/business-users', {
          json: { name: p.partner.name, email: `${p.partner.id}@owners.example.com`, business_ids: [business] },
        })
      ).body.id;
      userTokens.set(p.partner.id, await businessUserToken(h.url, p, user));
    }

    const doc = (await call(h.url, 'GET', '/openapi.json')).body;
    operations = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const security = (op.security as Array<Record<string, unknown>> | undefined) ?? [];
        operations.push({
          method: method.toUpperCase(),
          path,
          partner: op['x-pbs-partner'] as Operation['partner'],
          admin: security.some((s) => 'adminToken' in s),
          portal: op['x-pbs-portal'] === true,
          requestBody: op.requestBody as Operation['requestBody'],
        });
      }
    }
  });
  afterAll(() => h.close());

  /**
   * A concrete path: business ids from `business` (in the path, or the query for a `query` scope), the
   * owner's reservation and partner otherwise.
   */
  const concrete = (path: string, business: string, op?: Operation) => {
    const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name === 'business_id' || name === 'business_ids') return business;
      if (name === 'reservation_id') return reservationId;
      if (name === 'partner_id') return owner.partner.id;
      if (name === 'lead_id') return leadOf.get(business) ?? 'AAAAAAAAAAAAAAAAAAAAAA';
      return 'AAAAAAAAAAAAAAAAAAAAAA';
    });
    const scope = op?.partner?.business;
    return scope && 'query' in scope ? `${filled}?${String(scope.query)}=${business}` : filled;
  };
  const linkScoped = (op: Operation) => ['param', 'query', 'bodyList', 'paramList'].some((k) => k in op.partner!.business);

  /** The smallest JSON body the schema asks for, naming `business` wherever businesses go. */
  const body = (op: Operation, business: string): CallOptions => {
    const json = op.requestBody?.content?.['application/json'];
    // Operator operations refuse the credentials before reading a body.
    if (!json || !op.partner) return {};
    const examples: Record<string, unknown> = {
      business_ids: [business],
      subscription_types: ['WEBHOOK'],
      phone: '+14155550123',
      party_size: 2,
      name: 'Ada',
      arrival_range_min: 5,
      arrival_range_max: 10,
      features: { AD_GOAL: { ad_goal: 'CALLS' } },
      request_content: 'Thanks, we can come Thursday.',
      request_type: 'TEXT',
      event_id: 'AAAAAAAAAAAAAAAAAAAAAA',
      reply_type: 'PHONE',
      webhook_url: 'http://127.0.0.1:9/webhooks',
      webhook_type: 'leads_event',
    };
    const out: Record<string, unknown> = {};
    for (const name of json.schema?.required ?? []) {
      if (!(name in examples)) throw new Error(`${op.method} ${op.path}: add an example value for the required field "${name}"`);
      out[name] = examples[name];
    }
    return { json: out };
  };

  const credentials = (p: Awaited<ReturnType<typeof createPartner>>, scheme: Scheme): CallOptions =>
    scheme === 'basic'
      ? { basic: [p.basic.username, p.basic.password] }
      : { token: scheme === 'business_user' ? userTokens.get(p.partner.id) : p.apiKey.api_key };
  /** A business user's token reaching no lead of the business: 404 for a lead (not revealed), 403 for the business's ids. */
  const expectOutOfReach = (r: { status: number; body: any; text: string }, op: Operation, what: string) => {
    // A self-serve subscription, or the token's own businesses, are the caller's own: nothing of another's to reach.
    if (op.path === '/v3/webhooks' || 'unscoped' in op.partner!.business)
      expect([401, 403], `${what}: ${r.text.slice(0, 200)}`).not.toContain(r.status);
    else if (op.path.includes('{business_id}')) expectCode(r, 403, 'NO_BUSINESS_ACCESS', what);
    else expectCode(r, 404, 'NOT_FOUND', what);
  };

  const expectCode = (r: { status: number; body: any; text: string }, status: number, code: string, what: string) => {
    expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(status);
    expect(r.body?.error?.code, what).toBe(code);
  };

  it('finds partner, operator and public operations, each declared', () => {
    expect(operations.filter((o) => o.partner).length).toBeGreaterThan(10);
    expect(operations.filter((o) => o.admin).length).toBeGreaterThan(20);
    expect(operations.filter((o) => o.portal).length).toBeGreaterThan(3);
    const undeclared = operations.filter((o) => !o.partner && !o.admin && !o.portal && !PUBLIC.has(`${o.method} ${o.path}`));
    expect(undeclared.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it('(a) answers every protected operation without credentials with 401 TOKEN_MISSING', async () => {
    for (const op of operations.filter((o) => o.partner || o.admin || o.portal)) {
      const r = await call(h.url, op.method, concrete(op.path, ownersBusiness, op), body(op, ownersBusiness));
      expectCode(r, 401, 'TOKEN_MISSING', `${op.method} ${op.path}`);
    }
  });

  it("(b) gives another partner's credentials nothing of the owner's", async () => {
    for (const op of operations.filter((o) => o.partner || o.admin || o.portal)) {
      const what = `${op.method} ${op.path}`;
      const scheme = op.partner?.scheme ?? 'bearer';
      const r = await call(h.url, op.method, concrete(op.path, ownersBusiness, op), {
        ...body(op, ownersBusiness),
        ...credentials(other, scheme),
      });
      expect(r.status, what).toBeLessThan(500);
      if (op.admin) expectCode(r, 401, 'TOKEN_INVALID', what);
      // An API key is no portal session.
      else if (op.portal) expectCode(r, 401, 'TOKEN_MISSING', what);
      else if (scheme === 'business_user') expectOutOfReach(r, op, what);
      else if (linkScoped(op)) expectCode(r, 403, 'AUTHORIZATION_ERROR', what);
      else if (op.path.includes('{reservation_id}')) expect(r.body?.error?.code, what).toBe('INVALID_RESERVATION_ID');
      else expect([401, 403], `${what}: ${r.text.slice(0, 200)}`).not.toContain(r.status);
    }
  });

  it("(e) gives another partner's portal session nothing of the owner's, and the operator token no portal", async () => {
    await call(h.url, 'GET', '/v3/partner/restaurants', { token: owner.apiKey.api_key });
    await h.pbs.services.requestLog.flush();
    const ownersEntry = (await admin(h.url, 'GET', `/admin/v1/request-log?partner_id=${owner.partner.id}&limit=1`)).body.entries[0].id;
    const { cookie } = await portalSession(h, other.partner.id);
    for (const op of operations.filter((o) => o.portal)) {
      const what = `${op.method} ${op.path}`;
      const path = op.path.replace('{entry_id}', String(ownersEntry));
      expectCode(await admin(h.url, op.method, path), 401, 'TOKEN_MISSING', what);
      if (op.method !== 'GET') continue;
      const r = await call(h.url, op.method, path, { headers: { cookie } });
      expect(r.status, what).toBeLessThan(500);
      if (op.path.includes('{entry_id}')) expectCode(r, 404, 'NOT_FOUND', what);
      else expect(JSON.stringify(r.body), what).not.toContain(owner.partner.id);
    }
  });

  it('(c) answers a partner without the interface with 403 PARTNER_ENDPOINT_DISABLED', async () => {
    for (const op of operations.filter((o) => o.partner)) {
      const r = await call(h.url, op.method, concrete(op.path, ownersBusiness, op), {
        ...body(op, ownersBusiness),
        ...credentials(disabled, op.partner!.scheme),
      });
      expectCode(r, 403, 'PARTNER_ENDPOINT_DISABLED', `${op.method} ${op.path}`);
    }
  });

  it('(d) answers a business not linked to the caller with 403 AUTHORIZATION_ERROR, or records it as refused', async () => {
    for (const op of operations.filter((o) => o.partner)) {
      const what = `${op.method} ${op.path}`;
      const scope = op.partner!.business;
      const r = await call(h.url, op.method, concrete(op.path, othersBusiness, op), {
        ...body(op, othersBusiness),
        ...credentials(owner, op.partner!.scheme),
      });
      expect(r.status, what).toBeLessThan(500);
      if (op.partner!.scheme === 'business_user') expectOutOfReach(r, op, what);
      else if (linkScoped(op)) expectCode(r, 403, 'AUTHORIZATION_ERROR', what);
      else if ('deferred' in scope) expect(r.status, what).toBe(202);
    }
    await h.pbs.ctx.tasks.runDue();
    const requests = (await admin(h.url, 'GET', `/admin/v1/partners/${owner.partner.id}/subscription-requests`)).body.requests;
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.refused_business_ids).toEqual([othersBusiness]);
  });
});
