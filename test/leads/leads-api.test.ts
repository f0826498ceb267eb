import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  APP_REDIRECT,
  businessUserToken,
  call,
  createPartner,
  dialects,
  expectCode,
  sampleBusiness,
  startPbs,
  type Harness,
  type TestPartner,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

const pkcePair = () => {
  const verifier = randomBytes(40).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/**
 * The Leads API end to end (docs/contract/leads.md, docs/owners.md): a business user authorizes
 * a partner's app through the authorization code flow with PKCE, and the app reads, replies to
 * and marks leads with the business user's token.
 */
describe.each(dialects)('the Leads API with a business user’s authorization on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let advertised: string;
  let quiet: string;
  let unmanaged: string;
  const receivers: Receiver[] = [];

  /** GET /oauth2/authorize (without following its redirect). */
  const openAuthorize = (query: Record<string, string>) =>
    fetch(`${h.url}/oauth2/authorize?${new URLSearchParams(query)}`, { redirect: 'manual', headers: { accept: 'text/html' } });
  /** The consent page's form, as the browser sends it from pbs's page. */
  const answer = (form: Record<string, string>, site = 'same-origin') =>
    fetch(`${h.url}/oauth2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site },
      body: new URLSearchParams(form).toString(),
    });
  const token = (form: Record<string, string>, version: '' | '/v3' = '', client: TestPartner = p) =>
    call(h.url, 'POST', `/oauth2/token${version}`, {
      form: { client_id: client.oauth.client_id, client_secret: client.oauth.client_secret, ...form },
    });

  /** A code for `userId`, the way a browser gets it: the consent page, then Allow. */
  const codeFor = async (userId: string, options: { scope?: string; client?: TestPartner; challenge?: string; redirect?: string } = {}) => {
    const request = {
      client_id: (options.client ?? p).oauth.client_id,
      redirect_uri: options.redirect ?? APP_REDIRECT,
      response_type: 'code',
      scope: options.scope ?? 'leads',
      state: 'st4te',
      ...(options.challenge ? { code_challenge: options.challenge, code_challenge_method: 'S256' } : {}),
    };
    const page = await openAuthorize(request);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`${(options.client ?? p).partner.name} asks to act for you`);
    const answered = await answer({ ...request, user_id: userId, decision: 'approve' });
    expect(answered.status).toBe(303);
    const back = new URL(answered.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(options.redirect ?? APP_REDIRECT);
    expect(back.searchParams.get('state')).toBe('st4te');
    return back.searchParams.get('code')!;
  };
  /** A business user's tokens for `userId` (with PKCE). */
  const authorized = async (userId: string, scope = 'leads') => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(userId, { scope, challenge });
    const issued = await token({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier });
    expect(issued.status).toBe(200);
    return issued.body as { access_token: string; refresh_token: string };
  };
  const newBusiness = async (name: string) =>
    (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name }) })).body.id as string;
  const newUser = async (name: string, businessIds: string[]) =>
    (
      await admin(h.url, 'POST', '/admin/v1/business-users', {
        json: { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@owners.example.com`, business_ids: businessIds },
      })
    ).body.id as string;
  /** An active advertising program for the business: it then has leads data. */
  const advertise = async (businessId: string) => {
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    const created = await call(
      h.url,
      'POST',
      `/v1/reseller/program/create?${new URLSearchParams({ business_id: businessId, program_name: 'BP' })}`,
      {
        basic: [p.basic.username, p.basic.password],
      },
    );
    expect(created.status).toBe(200);
    await h.pbs.services.advertising.jobs.apply(created.body.job_id, { evenHeld: true });
    expect(await h.pbs.services.advertising.listings.advertisingNow(businessId)).toBe(true);
  };
  const leadOf = async (businessId: string, text?: string) =>
    (await h.pbs.services.leads.conversations.emit(businessId, text === undefined ? {} : { text })).lead_id;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '3000' } });
    p = await createPartner(h.url, ['leads', 'advertising', 'private_reviews', 'business_subscriptions', 'webhooks'], 'Lead App');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/leads`, { json: { per_second: 100000 } });
    advertised = await newBusiness('Bay Plumbing');
    quiet = await newBusiness('Quiet Plumbing');
    unmanaged = await newBusiness('Someone Else');
    await advertise(advertised);
    await advertise(unmanaged);
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  it('a business user authorizes the app (PKCE), and its token reads their lead and its conversation', async () => {
    const user = await newUser('Dana Owner', [advertised, quiet]);
    const tokens = await authorized(user);
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 7 * 86_400,
      refresh_token_expires_in: 365 * 86_400,
      expires_on: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
    });
    expect(tokens.access_token).toHaveLength(128);
    const leadId = await leadOf(advertised, 'Leaking pipe under the sink.');
    const lead = await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: tokens.access_token });
    expect(lead.status).toBe(200);
    expect(lead.body).toMatchObject({ id: leadId, business_id: advertised, project: { additional_info: 'Leaking pipe under the sink.' } });
    const events = await call(h.url, 'GET', `/v3/leads/${leadId}/events`, { token: tokens.access_token });
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({ user_type: 'CONSUMER', event_type: 'TEXT' });
    const ids = await call(h.url, 'GET', `/v3/businesses/${advertised}/lead_ids`, { token: tokens.access_token });
    expect(ids.body).toEqual({ lead_ids: [leadId], has_more: false });
    // The businesses the token reaches (real clients' health check), and lead metrics, not enabled.
    expect((await call(h.url, 'GET', '/token/v1/businesses', { token: tokens.access_token })).body).toEqual({
      business_ids: [advertised, quiet].sort(),
    });
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}/metrics`, { token: tokens.access_token }), 403, 'PARTNER_ENDPOINT_DISABLED');
  });

  it('pages a conversation longer than one page both ways by its cursors', async () => {
    const user = await newUser('Paging Owner', [advertised]);
    const { access_token } = await authorized(user);
    const leadId = await leadOf(advertised);
    for (let i = 1; i <= 24; i++) await h.pbs.services.leads.conversations.consumerSays(leadId, `message ${i}`);
    const page = async (query: Record<string, string>) =>
      (await call(h.url, 'GET', `/v3/leads/${leadId}/events?${new URLSearchParams(query)}`, { token: access_token })).body.events as Array<{
        id: string;
        cursor: string;
        event_content: { text: string };
      }>;
    const latest = await page({});
    expect(latest).toHaveLength(20);
    expect(latest.at(-1)!.event_content.text).toBe('message 24');
    const older = await page({ older_than_cursor: latest[0].cursor });
    expect(older).toHaveLength(5);
    expect(older[0].event_content.text).toMatch(/^Hi there/);
    const newer = await page({ newer_than_cursor: older[4].cursor, limit: '3' });
    expect(newer.map((e) => e.id)).toEqual(latest.slice(0, 3).map((e) => e.id));
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}/events?limit=21`, { token: access_token }), 400, 'VALIDATION_ERROR');
  });

  it('reaches only the businesses the user manages, and only those advertising', async () => {
    const user = await newUser('Reach Owner', [advertised, quiet]);
    const { access_token } = await authorized(user);
    const elsewhere = await leadOf(unmanaged);
    const quietLead = await leadOf(quiet);
    expectCode(await call(h.url, 'GET', `/v3/leads/${elsewhere}`, { token: access_token }), 404, 'NOT_FOUND');
    expectCode(await call(h.url, 'GET', `/v3/leads/${elsewhere}/events`, { token: access_token }), 404, 'NOT_FOUND');
    expectCode(await call(h.url, 'GET', `/v3/businesses/${unmanaged}/lead_ids`, { token: access_token }), 403, 'NO_BUSINESS_ACCESS');
    expectCode(
      await call(h.url, 'GET', `/v3/leads/${quietLead}`, { token: access_token }),
      403,
      'UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING',
    );
    expectCode(
      await call(h.url, 'GET', `/v3/businesses/${quiet}/lead_ids`, { token: access_token }),
      403,
      'UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING',
    );
    expectCode(await call(h.url, 'GET', '/v3/businesses/no-such-business/lead_ids', { token: access_token }), 404, 'BUSINESS_NOT_FOUND');
    expectCode(await call(h.url, 'GET', '/v3/leads/not%20an%20id', { token: access_token }), 400, 'INVALID_ID');
    expectCode(await call(h.url, 'GET', '/v3/leads/no-such-lead', { token: access_token }), 404, 'NOT_FOUND');
    // A business the user stops managing is out of reach at once.
    const mine = await leadOf(advertised);
    expect((await call(h.url, 'GET', `/v3/leads/${mine}`, { token: access_token })).status).toBe(200);
    await admin(h.url, 'DELETE', `/admin/v1/business-users/${user}/businesses/${advertised}`);
    expectCode(await call(h.url, 'GET', `/v3/leads/${mine}`, { token: access_token }), 404, 'NOT_FOUND');
  });

  it('takes only a business user’s token with the leads scope, and that token nothing else', async () => {
    const user = await newUser('Scope Owner', [advertised]);
    const leadId = await leadOf(advertised);
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`), 401, 'TOKEN_MISSING');
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: p.apiKey.api_key }), 401, 'UNAUTHORIZED_API_KEY');
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: 'pbsu_not-a-token' }), 401, 'TOKEN_INVALID');
    const reviewsOnly = await authorized(user, 'r2r r2r_business_owner');
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: reviewsOnly.access_token }), 401, 'UNAUTHORIZED_API_KEY');
    const { access_token } = await authorized(user, 'leads r2r_business_owner r2r_get_businesses');
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: access_token })).status).toBe(200);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${advertised}`);
    expectCode(
      await call(h.url, 'GET', `/v3/private/businesses/${advertised}/reviews`, { token: access_token }),
      401,
      'UNAUTHORIZED_API_KEY',
    );
    // The interface stays the operator's to grant.
    const other = await createPartner(h.url, ['advertising'], 'No Leads');
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(user, { client: other, challenge });
    const issued = await token({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier }, '', other);
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: issued.body.access_token }), 403, 'PARTNER_ENDPOINT_DISABLED');
  });

  it('allows 5 requests a second by default, as the original', async () => {
    const app = await createPartner(h.url, ['leads'], 'Default Limits');
    const user = await newUser('Limit Owner', [advertised]);
    const token = await businessUserToken(h.url, app, user);
    const leadId = await leadOf(advertised);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token })).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
  });

  it('redeems a code once, within five minutes, with its redirect URI and PKCE verifier, by its own client', async () => {
    const user = await newUser('Code Owner', [advertised]);
    const other = await createPartner(h.url, ['leads'], 'Code Thief');
    const { verifier, challenge } = pkcePair();
    const redeem = (code: string, extra: Record<string, string> = {}, client: TestPartner = p) =>
      token({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier, ...extra }, '', client);

    const code = await codeFor(user, { challenge });
    expectCode(await redeem(code, {}, other), 400, 'INVALID_GRANT');
    expectCode(await redeem(code, { code_verifier: pkcePair().verifier }), 400, 'INVALID_GRANT');
    expectCode(await redeem(code, { redirect_uri: 'http://127.0.0.1:9/elsewhere' }), 400, 'INVALID_GRANT');
    expectCode(await redeem(code, { redirect_uri: '' }), 400, 'INVALID_GRANT');
    expectCode(
      await token({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier, client_secret: 'wrong' }),
      401,
      'INVALID_CLIENT',
    );
    const first = await redeem(code);
    expect(first.status).toBe(200);
    const leadId = await leadOf(advertised);
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: first.body.access_token })).status).toBe(200);
    // Used again: refused, and what the first use gave is revoked (RFC 6749 §4.1.2).
    expectCode(await redeem(code), 400, 'INVALID_GRANT');
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: first.body.access_token }), 401, 'TOKEN_INVALID');
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }), 400, 'INVALID_GRANT');

    const late = await codeFor(user, { challenge });
    h.clock.advance(5 * 60_000);
    expectCode(await redeem(late), 400, 'INVALID_GRANT');
    expectCode(await token({ grant_type: 'authorization_code' }), 400, 'INVALID_REQUEST');
    expectCode(await token({ grant_type: 'password' }), 400, 'UNSUPPORTED_GRANT_TYPE');
  });

  it('refreshes: v2 returns the live refresh token again, v3 a new one and ends the chain when an old one comes back', async () => {
    const user = await newUser('Refresh Owner', [advertised]);
    const leadId = await leadOf(advertised);
    const first = await authorized(user);
    const v2 = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(v2.status).toBe(200);
    expect(v2.body.refresh_token).toBe(first.refresh_token);
    expect(v2.body.access_token).not.toBe(first.access_token);
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: v2.body.access_token })).status).toBe(200);

    const v3 = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, '/v3');
    expect(v3.status).toBe(200);
    expect(v3.body.refresh_token).not.toBe(first.refresh_token);
    expect(v3.body).toMatchObject({ token_type: 'Bearer', refresh_token_expires_on: expect.any(String) });
    // The replaced refresh token presented again: refused, and the live one ends with it.
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, '/v3'), 400, 'INVALID_GRANT');
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: v3.body.refresh_token }, '/v3'), 400, 'INVALID_GRANT');
    // Access tokens already issued live on until they expire (seven days).
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: v3.body.access_token })).status).toBe(200);
    h.clock.advance(7 * 86_400_000);
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: v3.body.access_token }), 401, 'TOKEN_INVALID');
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: 'pbsu_unknown' }), 400, 'INVALID_GRANT');
    // Removing the business user ends their tokens.
    const again = await authorized(user);
    await admin(h.url, 'DELETE', `/admin/v1/business-users/${user}`);
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: again.refresh_token }), 400, 'INVALID_GRANT');
  });

  it('revokes: the app a token (RFC 7009), the operator every authorization of a business user', async () => {
    const user = await newUser('Revoke Owner', [advertised]);
    const leadId = await leadOf(advertised);
    const read = (access: string) => call(h.url, 'GET', `/v3/leads/${leadId}`, { token: access });
    const revoke = (token: string, client: TestPartner = p) =>
      call(h.url, 'POST', '/oauth2/revoke', {
        form: { token, client_id: client.oauth.client_id, client_secret: client.oauth.client_secret },
      });

    // An access token ends alone; its refresh token still works.
    const first = await authorized(user);
    expect(await revoke(first.access_token)).toMatchObject({ status: 200, body: {} });
    expectCode(await read(first.access_token), 401, 'TOKEN_INVALID');
    const renewed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect((await read(renewed.body.access_token)).status).toBe(200);
    // A refresh token ends the whole authorization; another client's revocation, or an unknown token, changes nothing.
    const other = await createPartner(h.url, ['leads'], 'Revoke Stranger');
    expect((await revoke(renewed.body.refresh_token, other)).status).toBe(200);
    expect((await read(renewed.body.access_token)).status).toBe(200);
    expect((await revoke('pbsu_nothing')).status).toBe(200);
    expect((await revoke(renewed.body.refresh_token)).status).toBe(200);
    expectCode(await read(renewed.body.access_token), 401, 'TOKEN_INVALID');
    expectCode(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }), 400, 'INVALID_GRANT');
    expectCode(
      await call(h.url, 'POST', '/oauth2/revoke', { form: { token: 'x', client_id: p.oauth.client_id, client_secret: 'wrong' } }),
      401,
      'INVALID_CLIENT',
    );

    // The operator sees the user's authorizations and ends them all.
    const live = await authorized(user);
    const listed = await admin(h.url, 'GET', `/admin/v1/business-users/${user}/authorizations`);
    expect(listed.body.authorizations[0]).toMatchObject({ partner_id: p.partner.id, scopes: ['leads'], revoked_at: null });
    expect(listed.body.authorizations.filter((a: { revoked_at: string | null }) => a.revoked_at !== null)).toHaveLength(1);
    expect((await admin(h.url, 'DELETE', `/admin/v1/business-users/${user}/authorizations`)).body).toEqual({ revoked: 1 });
    expectCode(await read(live.access_token), 401, 'TOKEN_INVALID');
    expectCode(await admin(h.url, 'GET', '/admin/v1/business-users/nobody/authorizations'), 404, 'NOT_FOUND');
  });

  it('bounds what one partner keeps per business user: 100 live authorizations, 100 live access tokens each', async () => {
    const user = await newUser('Bounded Owner', [advertised]);
    const leadId = await leadOf(advertised);
    const first = await authorized(user);
    let latest = first.access_token;
    for (let i = 0; i < 100; i++)
      latest = (await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).body.access_token;
    // The oldest live access token made way for the newest.
    expectCode(await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: first.access_token }), 401, 'TOKEN_INVALID');
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, { token: latest })).status).toBe(200);
    const request = { client_id: p.oauth.client_id, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'leads', user_id: user };
    for (let i = 1; i < 100; i++) expect((await answer({ ...request, decision: 'approve' })).status).toBe(303);
    expectCode(
      await call(h.url, 'POST', '/oauth2/authorize', {
        form: { ...request, decision: 'approve' },
        headers: { 'sec-fetch-site': 'same-origin' },
      }),
      403,
      'QUOTA_EXCEEDED',
    );
    // Revoked ones (and codes that expired unredeemed) no longer count.
    await admin(h.url, 'DELETE', `/admin/v1/business-users/${user}/authorizations`);
    expect((await answer({ ...request, decision: 'approve' })).status).toBe(303);
  });

  it('replies into the conversation (API-SELF) with its echo webhook, and refuses the same text twice in a row', async () => {
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    receivers.push(receiver);
    const url = await receiver.start();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'lead-app' } });
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${advertised}`);
    expect(
      (
        await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
          token: p.apiKey.api_key,
          json: { business_ids: [advertised] },
        })
      ).status,
    ).toBe(200);
    const user = await newUser('Reply Owner', [advertised]);
    const { access_token } = await authorized(user);
    const leadId = await leadOf(advertised);
    const send = (json: unknown) => call(h.url, 'POST', `/v3/leads/${leadId}/events`, { token: access_token, json });

    const sent = await send({ request_content: 'Thanks, we can come Thursday morning.', request_type: 'TEXT' });
    expect(sent.status).toBe(201);
    const events = (await call(h.url, 'GET', `/v3/leads/${leadId}/events`, { token: access_token })).body.events;
    expect(events.at(-1)).toMatchObject({
      id: sent.body.event_id,
      user_type: 'BIZ',
      user_id: user,
      user_display_name: 'Bay Plumbing',
      channel: 'API-SELF',
      event_content: { text: 'Thanks, we can come Thursday morning.', fallback_text: 'Thanks, we can come Thursday morning.' },
    });
    await h.pbs.deliverWebhooks();
    const updates = receiver.posts().flatMap((post) => JSON.parse(post.body).data.updates);
    expect(updates).toContainEqual({
      event_type: 'NEW_EVENT',
      event_id: sent.body.event_id,
      lead_id: leadId,
      interaction_time: expect.any(String),
    });
    // The operator's (and the portal's) view names the webhook message of each event: its deliveries are one filter away.
    const viewed = (await admin(h.url, 'GET', `/admin/v1/leads/${leadId}`)).body.events.find(
      (e: { id: string }) => e.id === sent.body.event_id,
    );
    const deliveries = await admin(h.url, 'GET', `/admin/v1/webhook-deliveries?message_id=${viewed.message_id}`);
    expect(deliveries.body.deliveries).toMatchObject([{ partner_id: p.partner.id, status: 'delivered' }]);
    expect(receiver.posts().map((post) => post.headers['webhook-id'])).toContain(viewed.message_id);

    expectCode(
      await send({ request_content: 'Thanks, we can come Thursday morning.', request_type: 'TEXT' }),
      400,
      'SAME_SUCCESSIVE_MESSAGE',
    );
    await h.pbs.services.leads.conversations.consumerSays(leadId, 'Thursday works.');
    expect((await send({ request_content: 'Thanks, we can come Thursday morning.', request_type: 'TEXT' })).status).toBe(201);
    expect((await send({ request_content: 'See you then.', request_type: 'TEXT' })).status).toBe(201);
    h.clock.advance(3_600_000);
    expect((await send({ request_content: 'See you then.', request_type: 'TEXT' })).status).toBe(201);

    expectCode(await send({ request_type: 'TEXT' }), 400, 'VALIDATION_ERROR');
    expectCode(await send({ request_content: 'Hello' }), 400, 'VALIDATION_ERROR');
    expectCode(await send({ request_content: 'Hello', request_type: 'IMAGE' }), 400, 'VALIDATION_ERROR');
    expectCode(await send({ request_content: 'x', request_type: 'TEXT' }), 400, 'VALIDATION_ERROR');
    expectCode(await send({ request_content: 'x'.repeat(5001), request_type: 'TEXT' }), 400, 'VALIDATION_ERROR');
    expectCode(await send([]), 400, 'VALIDATION_ERROR');
  });

  it('marks events read (up to one, never back) and the lead replied (once)', async () => {
    const user = await newUser('Mark Owner', [advertised]);
    const { access_token } = await authorized(user);
    const leadId = await leadOf(advertised);
    await h.pbs.services.leads.conversations.consumerSays(leadId, 'Any news?');
    const events = (await call(h.url, 'GET', `/v3/leads/${leadId}/events`, { token: access_token })).body.events;
    const read = (json: unknown) => call(h.url, 'POST', `/v3/leads/${leadId}/events/mark_as_read`, { token: access_token, json });
    const readThrough = async () => (await admin(h.url, 'GET', `/admin/v1/leads/${leadId}`)).body.read_through_event_id;

    expect(await read({ event_id: events[1].id, time_read: '2031-05-05T16:00:00Z' })).toMatchObject({ status: 201, body: {} });
    expect(await readThrough()).toBe(events[1].id);
    expect((await read({ event_id: events[0].id })).status).toBe(201);
    expect(await readThrough()).toBe(events[1].id);
    expectCode(await read({}), 400, 'VALIDATION_ERROR');
    expectCode(await read({ event_id: 'bad id!' }), 400, 'INVALID_ID');
    expectCode(await read({ event_id: events[0].id, time_read: 'yesterday' }), 400, 'VALIDATION_ERROR');
    expectCode(await read({ event_id: 'NoSuchEvent' }), 404, 'NOT_FOUND');

    const replied = (json: unknown) => call(h.url, 'POST', `/v3/leads/${leadId}/mark_as_replied`, { token: access_token, json });
    expectCode(await replied({}), 400, 'VALIDATION_ERROR');
    expectCode(await replied({ reply_type: 'SMS' }), 400, 'VALIDATION_ERROR');
    expect(await replied({ reply_type: 'PHONE' })).toMatchObject({ status: 201, body: {} });
    expect((await admin(h.url, 'GET', `/admin/v1/leads/${leadId}`)).body.replied_as).toBe('PHONE');
    expectCode(await replied({ reply_type: 'EMAIL' }), 403, 'NOT_AUTHORIZED');
  });

  it('subscribes to a business user’s lead webhooks for 14 days, without links, until deleted', async () => {
    const app = await createPartner(h.url, ['leads', 'webhooks'], 'Self-serve App');
    await admin(h.url, 'PUT', `/admin/v1/partners/${app.partner.id}/interfaces/leads`, { json: { per_second: 100000 } });
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    receivers.push(receiver);
    const url = await receiver.start();
    const user = await newUser('Hook Owner', [advertised]);
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(user, { client: app, challenge });
    const access = (await token({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier }, '', app))
      .body.access_token as string;
    const subscribe = (json: unknown, auth = access) => call(h.url, 'POST', '/v3/webhooks', { token: auth, json });
    const leadsDelivered = async () => {
      await h.pbs.deliverWebhooks();
      return receiver.posts().flatMap((post) => JSON.parse(post.body).data.updates as Array<{ lead_id?: string }>);
    };

    expectCode(await subscribe({ webhook_url: url, webhook_type: 'leads_event' }), 400, 'VALIDATION_ERROR');
    await admin(h.url, 'PUT', `/admin/v1/partners/${app.partner.id}/webhook`, { json: { url, client_id: 'self-serve' } });
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${app.partner.id}/webhook/verify`)).body.status).toBe('verified');
    expectCode(await subscribe({ webhook_url: `${url}/other`, webhook_type: 'leads_event' }), 400, 'VALIDATION_ERROR');
    expectCode(await subscribe({ webhook_type: 'leads_event' }), 400, 'VALIDATION_ERROR');
    expectCode(await subscribe({ webhook_url: url, webhook_type: 'reviews' }), 400, 'VALIDATION_ERROR');
    expectCode(
      await subscribe({ webhook_url: url, webhook_type: 'leads_event', restricted_business_ids: [unmanaged] }),
      400,
      'VALIDATION_ERROR',
    );
    expectCode(
      await subscribe({ webhook_url: url, webhook_type: 'leads_event', restricted_business_ids: Array(51).fill(advertised) }),
      400,
      'VALIDATION_ERROR',
    );
    expectCode(await subscribe({ webhook_url: url, webhook_type: 'leads_event' }, app.apiKey.api_key), 401, 'UNAUTHORIZED_API_KEY');

    const made = await subscribe({ webhook_url: url, webhook_type: 'leads_event', restricted_business_ids: [advertised] });
    expect(made.status).toBe(200);
    expect(Date.parse(made.body.expiration_date) - h.clock.now()).toBe(14 * 86_400_000);
    expectCode(await subscribe({ webhook_url: url, webhook_type: 'leads_event' }), 409, 'CONFLICT');
    // The app is linked to nothing: its business user's subscription is what sends it the lead.
    const lead = await leadOf(advertised);
    expect((await leadsDelivered()).map((u) => u.lead_id)).toContain(lead);
    await h.pbs.services.leads.conversations.emit(advertised, { lead_id: lead, event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT' });
    expect(await leadsDelivered()).toContainEqual({ event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT', lead_id: lead });
    // Deleted: no more; another partner's id, or a deleted one, is unknown.
    expectCode(
      await call(h.url, 'DELETE', `/v3/webhooks/${made.body.webhook_id}`, { token: await businessUserToken(h.url, p, user) }),
      404,
      'NOT_FOUND',
    );
    expect((await call(h.url, 'DELETE', `/v3/webhooks/${made.body.webhook_id}`, { token: access })).status).toBe(200);
    expectCode(await call(h.url, 'DELETE', `/v3/webhooks/${made.body.webhook_id}`, { token: access }), 404, 'NOT_FOUND');
    const unheard = await leadOf(advertised);
    expect((await leadsDelivered()).map((u) => u.lead_id)).not.toContain(unheard);
    // A new one covers every business the user manages, and lapses after 14 days.
    expect((await subscribe({ webhook_url: url, webhook_type: 'leads_event' })).status).toBe(200);
    const heard = await leadOf(advertised);
    expect((await leadsDelivered()).map((u) => u.lead_id)).toContain(heard);
    h.clock.advance(14 * 86_400_000);
    const lapsed = await leadOf(advertised);
    expect((await leadsDelivered()).map((u) => u.lead_id)).not.toContain(lapsed);
    const fresh = await businessUserToken(h.url, app, user);
    expect((await subscribe({ webhook_url: url, webhook_type: 'leads_event' }, fresh)).status).toBe(200);
  });

  it('the authorization page refuses what it cannot trust on its own page, and sends other faults back to the app', async () => {
    const user = await newUser('Page Owner', [advertised]);
    const base = { client_id: p.oauth.client_id, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'leads', state: 's' };
    const refused = async (query: Record<string, string>, words: string) => {
      const page = await openAuthorize(query);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain(words);
    };
    await refused({ ...base, client_id: 'nobody' }, 'not a known partner client');
    // A program (not asking for HTML) gets the catalogue's errors instead of pages.
    expectCode(await call(h.url, 'GET', '/oauth2/authorize?client_id=nobody'), 400, 'INVALID_REQUEST');
    expectCode(await call(h.url, 'POST', '/oauth2/authorize', { form: { ...base, decision: 'maybe' } }), 400, 'VALIDATION_ERROR');
    await refused({ ...base, redirect_uri: 'https://app.example.com/cb' }, 'registered no redirect URI');
    await refused({ ...base, redirect_uri: 'http://127.0.0.1:9/cb#frag' }, 'fragment');
    const back = async (query: Record<string, string>) => new URL((await openAuthorize(query)).headers.get('location')!).searchParams;
    expect((await back({ ...base, scope: 'everything' })).get('error')).toBe('invalid_scope');
    expect((await back({ ...base, response_type: 'token' })).get('error')).toBe('unsupported_response_type');
    expect((await back({ ...base, code_challenge: 'short' })).get('error')).toBe('invalid_request');
    const denied = await answer({ ...base, user_id: user, decision: 'deny' });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    expect((await answer({ ...base, user_id: user, decision: 'approve' }, 'cross-site')).status).toBe(403);
    expect((await answer({ ...base, user: 'nobody@example.com', decision: 'approve' })).status).toBe(400);

    // Registered URIs: only those, matched exactly; one registered may be left out of the request.
    const registered = 'https://app.example.com/leads/callback';
    const put = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/redirect-uris`, { json: { redirect_uris: [registered] } });
    expect(put.body).toEqual({ redirect_uris: [registered] });
    await refused(base, 'not one of the partner’s registered redirect URIs');
    const { redirect_uri: _omitted, ...withoutRedirect } = base;
    expect((await openAuthorize(withoutRedirect)).status).toBe(200);
    const approved = await answer({ ...withoutRedirect, user_id: user, decision: 'approve' });
    expect(approved.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\/leads\/callback\?code=/);
    expectCode(
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/redirect-uris`, { json: { redirect_uris: ['ftp://x'] } }),
      400,
      'VALIDATION_ERROR',
    );
    expectCode(await admin(h.url, 'GET', '/admin/v1/partners/nobody/redirect-uris'), 404, 'NOT_FOUND');
    // The CLI sets and reads them too.
    const oauth = h.pbs.commands.get('oauth')!;
    expect(await oauth(['redirect-uris', p.partner.id], { set: 'http://127.0.0.1:9/callback' })).toEqual({
      redirect_uris: ['http://127.0.0.1:9/callback'],
    });
    expect(await oauth(['redirect-uris', p.partner.id], { clear: '' })).toEqual({ redirect_uris: [] });
    await expect(oauth(['redirect-uris', 'nobody'], {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
