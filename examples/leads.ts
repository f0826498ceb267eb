// Leads with the SDK: a business user authorizes your app (authorization code with PKCE), then
// your app reads a lead behind a NEW_EVENT webhook, its conversation, replies and marks it read,
// with the business user's token (refreshed by the client when it expires).
import { authorizationRequest, createPbsClient, exchangeCode, ok, revokeToken, type BusinessUserTokens } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

/** Your app's redirect URI: in the sandbox a loopback address needs no registration. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/**
 * What the business user's browser does on pbs's consent page in the sandbox: choose who signs in
 * (here the demo's first business user) and press Allow. Answers the redirect's code and state.
 */
async function allowInBrowser(url: string, userId: string): Promise<{ code: string; state: string }> {
  const request = new URL(url);
  const form = new URLSearchParams({ ...Object.fromEntries(request.searchParams), user_id: userId, decision: 'approve' });
  const answer = await fetch(`${request.origin}/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'sec-fetch-site': 'same-origin' },
    body: form,
  });
  const back = new URL(answer.headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

export async function leads(env: ExampleEnv) {
  // 1. Send the business user to pbs (keep state and verifier in their session).
  const started = authorizationRequest({ baseUrl: env.baseUrl, clientId: env.oauth.clientId, redirectUri: REDIRECT_URI });
  const returned = await allowInBrowser(started.url, 'demo-owner-6');
  if (returned.state !== started.state) throw new Error('state does not match: not our authorization');
  // 2. Your redirect URI got the code: redeem it for their tokens.
  const app = { baseUrl: env.baseUrl, ...env.oauth };
  let saved: BusinessUserTokens = await exchangeCode(app, {
    code: returned.code,
    redirectUri: REDIRECT_URI,
    codeVerifier: started.codeVerifier,
  });
  const pbs = createPbsClient({
    baseUrl: env.baseUrl,
    auth: { businessUser: { ...env.oauth, tokens: saved, onRefresh: (fresh) => void (saved = fresh) } },
  });

  // 3. A NEW_EVENT webhook named a lead: read it and its newest events, reply, mark read.
  const leadId = 'demo-lead-birthday';
  const lead = await ok(pbs.GET('/v3/leads/{lead_id}', { params: { path: { lead_id: leadId } } }));
  const { events } = await ok(pbs.GET('/v3/leads/{lead_id}/events', { params: { path: { lead_id: leadId }, query: { limit: 5 } } }));
  const newest = events[events.length - 1];
  env.log(`${lead.user.display_name} asks about ${lead.project.job_names.join(', ')}: "${newest.event_content.fallback_text}"`);
  const reply = await ok(
    pbs.POST('/v3/leads/{lead_id}/events', {
      params: { path: { lead_id: leadId } },
      body: { request_content: `Thanks ${lead.user.display_name}, a private room is free that evening.`, request_type: 'TEXT' },
    }),
  );
  await ok(
    pbs.POST('/v3/leads/{lead_id}/events/mark_as_read', { params: { path: { lead_id: leadId } }, body: { event_id: reply.event_id } }),
  );
  // 4. Reconcile: the business's lead ids, newest first.
  const ids = await ok(pbs.GET('/v3/businesses/{business_id}/lead_ids', { params: { path: { business_id: lead.business_id } } }));
  env.log(`replied (${reply.event_id}); ${ids.lead_ids.length} lead(s) for ${lead.business_id}`);
  // 5. The business user disconnects your app: end the authorization (its refresh token ends it all).
  await revokeToken(app, saved.refreshToken);
  return { lead: lead.id, jobs: lead.project.job_names, replied: reply.event_id, leadIds: ids.lead_ids, disconnected: true };
}

runWhenMain(import.meta.url, leads);
