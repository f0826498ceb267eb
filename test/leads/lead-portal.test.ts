import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  call,
  createPartner,
  dialects,
  portalSession,
  sampleBusiness,
  spendPortalLink,
  startPbs,
  type Harness,
} from '../support/harness.js';
import { LeadPortal } from '../../src/leads/lead-portal.js';
import { LeadService } from '../../src/leads/lead-service.js';

/** Leads in the partner portal: its own businesses' leads; in the sandbox, leads started by hand. */
describe.each(dialects)('leads in the partner portal on %s', (dialect) => {
  let h: Harness;
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    h = await startPbs(dialect);
    mine = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Mine' }) })).body.id;
    theirs = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Theirs' }) })).body.id;
  });
  afterAll(() => h.close());

  const partnerLinkedTo = async (businessId: string, name: string) => {
    const p = await createPartner(h.url, ['webhooks'], name);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    return { ...p, headers: await portalSession(h, p.partner.id) };
  };

  it("starts a lead for its business, speaks for the consumer, and reads the conversation; another's stays hidden", async () => {
    const p = await partnerLinkedTo(mine, 'Portal leads');
    const other = await partnerLinkedTo(theirs, 'Other portal');
    const started = await call(h.url, 'POST', '/portal/v1/leads', {
      headers: p.headers,
      json: { business_id: mine, text: 'Two bathrooms.' },
    });
    expect(started.status).toBe(201);
    const said = await call(h.url, 'POST', `/portal/v1/leads/${started.body.lead_id}/messages`, {
      headers: p.headers,
      json: { text: 'Any news?' },
    });
    expect(said.status).toBe(201);
    const view = await call(h.url, 'GET', `/portal/v1/leads/${started.body.lead_id}`, { headers: p.headers });
    expect(view.body.lead).toMatchObject({ business_id: mine, project: { additional_info: 'Two bathrooms.' } });
    expect(view.body.events.map((e: { id: string }) => e.id)).toEqual([started.body.lead_event_id, said.body.lead_event_id]);
    const listed = await call(h.url, 'GET', `/portal/v1/leads?business_id=${mine}`, { headers: p.headers });
    expect(listed.body.leads.map((l: { id: string }) => l.id)).toEqual([started.body.lead_id]);

    // Another partner: not its business, not its lead, and nothing written for it.
    const cases: Array<[string, string, unknown, number, string]> = [
      ['GET', `/portal/v1/leads/${started.body.lead_id}`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/portal/v1/leads/${started.body.lead_id}/messages`, {}, 404, 'NOT_FOUND'],
      ['GET', `/portal/v1/leads?business_id=${mine}`, undefined, 403, 'AUTHORIZATION_ERROR'],
      ['POST', '/portal/v1/leads', { business_id: mine }, 403, 'AUTHORIZATION_ERROR'],
      ['POST', '/portal/v1/leads', { business_id: 'no-such-business' }, 404, 'BUSINESS_NOT_FOUND'],
      ['POST', '/portal/v1/leads', {}, 400, 'VALIDATION_ERROR'],
      ['GET', '/portal/v1/leads', undefined, 400, 'VALIDATION_ERROR'],
    ];
    for (const [method, path, json, status, code] of cases) {
      const r = await call(h.url, method, path, { headers: other.headers, ...(json === undefined ? {} : { json }) });
      expect([method, path, r.status, r.body.error?.code]).toEqual([method, path, status, code]);
    }
    expect((await call(h.url, 'GET', `/portal/v1/leads/${started.body.lead_id}`, { headers: p.headers })).body.events).toHaveLength(2);
    // Without a session: nothing.
    expect((await call(h.url, 'GET', `/portal/v1/leads?business_id=${mine}`)).status).toBe(401);
  });
});

describe.each(dialects)('what one partner may make by hand, on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  it('is capped: leads per business from the portal, events per lead', async () => {
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Capped' }) })).body.id;
    const leads = new LeadService(h.pbs.ctx.database, h.pbs.ctx.clock, h.pbs.services.businesses, {
      publicUrl: h.pbs.ctx.config.publicUrl,
      onEventsCommitted: () => {},
      maxEventsPerLead: 2,
    });
    const portal = new LeadPortal(leads, { sandbox: true, maxLeadsPerBusiness: 2, linkedBusiness: async (_, id) => id });
    const first = await portal.start('p', business, undefined);
    await portal.start('p', business, undefined);
    await expect(portal.start('p', business, undefined)).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', status: 403 });
    await portal.consumerSays('p', first.lead_id, 'second event');
    await expect(portal.consumerSays('p', first.lead_id, 'third event')).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect((await leads.get(first.lead_id)).events).toHaveLength(2);
    expect(await leads.countOf(business)).toBe(2);
  });
});

describe('leads in the portal of a production server', () => {
  let h: Harness;
  const token = 'a-production-operator-token-of-32-characters-or-more';
  const op = (method: string, path: string, json?: unknown) =>
    call(h.url, method, path, { token, ...(json === undefined ? {} : { json }) });
  beforeAll(async () => {
    h = await startPbs('sqlite', { env: { PBS_SANDBOX: '0', PBS_ADMIN_TOKEN: token, PBS_SECRET_KEY: 'b'.repeat(64) } });
  });
  afterAll(() => h.close());

  it('reads leads, and starts none by hand', async () => {
    const business = (await op('POST', '/admin/v1/businesses', sampleBusiness({ name: 'Live' }))).body.id;
    const partner = (await op('POST', '/admin/v1/partners', { name: 'Live portal', interfaces: ['webhooks'] })).body.id;
    await op('PUT', `/admin/v1/partners/${partner}/businesses/${business}`);
    const signedIn = await spendPortalLink(h, (await op('POST', `/admin/v1/partners/${partner}/portal-links`)).body.url);
    const headers = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0], origin: h.url };
    const lead = (await op('POST', `/admin/v1/businesses/${business}/events/leads`, {})).body.lead_id;
    expect((await call(h.url, 'GET', `/portal/v1/leads/${lead}`, { headers })).status).toBe(200);
    const refused = await call(h.url, 'POST', '/portal/v1/leads', { headers, json: { business_id: business } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'AUTHORIZATION_ERROR']);
    const said = await call(h.url, 'POST', `/portal/v1/leads/${lead}/messages`, { headers, json: {} });
    expect([said.status, said.body.error.code]).toEqual([403, 'AUTHORIZATION_ERROR']);
    expect((await call(h.url, 'GET', `/portal/v1/leads/${lead}`, { headers })).body.events).toHaveLength(1);
  });
});
