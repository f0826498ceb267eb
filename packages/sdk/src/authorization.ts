import { createHash, randomBytes } from 'node:crypto';
import { PbsError } from './errors.js';

/**
 * A business user's authorization of your app (the Leads API): the authorization code flow with
 * PKCE. `authorizationRequest` gives the URL to send their browser to; your redirect URI gets
 * `code` and `state`; `exchangeCode` turns the code into their tokens, and a client made with
 * `auth: { businessUser }` refreshes them when they expire.
 */

/** A business user's tokens, as pbs issued them. */
export interface BusinessUserTokens {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires (ms since the epoch). */
  expiresAt: number;
  /** When the refresh token expires (ms since the epoch). */
  refreshExpiresAt: number;
}

/** Your app's OAuth client (an `oauth_client` credential) and where pbs answers. */
export interface OAuthApp {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: (request: Request) => Promise<Response>;
}

/** What to keep between sending the user away and their return: the state to check and the PKCE verifier. */
export interface AuthorizationRequest {
  url: string;
  state: string;
  codeVerifier: string;
}

/**
 * The URL of pbs's consent page for a business user, with a fresh `state` and PKCE (S256)
 * challenge. Keep `state` and `codeVerifier` (e.g. in the user's session) for the return.
 */
export function authorizationRequest(options: {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  /** Space-separated; default `leads`. */
  scope?: string;
}): AuthorizationRequest {
  const state = randomBytes(16).toString('base64url');
  const codeVerifier = randomBytes(48).toString('base64url');
  const query = new URLSearchParams({
    client_id: options.clientId,
    response_type: 'code',
    scope: options.scope ?? 'leads',
    redirect_uri: options.redirectUri,
    state,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return { url: `${options.baseUrl.replace(/\/+$/, '')}/oauth2/authorize?${query}`, state, codeVerifier };
}

/**
 * The business user's tokens for the `code` your redirect URI received. Check first that its
 * `state` is the one you sent (`authorizationRequest`); a code works once, within 5 minutes.
 */
export function exchangeCode(
  app: OAuthApp,
  grant: { code: string; redirectUri: string; codeVerifier: string },
): Promise<BusinessUserTokens> {
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.codeVerifier,
  });
}

/** New tokens for a refresh token (`/oauth2/token/v3`: the refresh token is replaced; keep the new one). */
export function refreshTokens(app: OAuthApp, refreshToken: string): Promise<BusinessUserTokens> {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/**
 * Ends a business user's token (RFC 7009): an access token alone, a refresh token with its whole
 * authorization (when the business user disconnects your app).
 */
export async function revokeToken(app: OAuthApp, token: string): Promise<void> {
  const url = `${app.baseUrl.replace(/\/+$/, '')}/oauth2/revoke`;
  const form = new URLSearchParams({ token, client_id: app.clientId, client_secret: app.clientSecret });
  const response = await (app.fetch ?? ((r: Request) => globalThis.fetch(r)))(new Request(url, { method: 'POST', body: form }));
  if (!response.ok) throw new PbsError(response.status, await response.json().catch(() => undefined), 'POST', url, response.headers);
}

async function tokenRequest(app: OAuthApp, fields: Record<string, string>): Promise<BusinessUserTokens> {
  const url = `${app.baseUrl.replace(/\/+$/, '')}/oauth2/token/v3`;
  const form = new URLSearchParams({ ...fields, client_id: app.clientId, client_secret: app.clientSecret });
  const response = await (app.fetch ?? ((r: Request) => globalThis.fetch(r)))(new Request(url, { method: 'POST', body: form }));
  const body = (await response.json().catch(() => undefined)) as
    { access_token?: string; refresh_token?: string; expires_in?: number; refresh_token_expires_in?: number } | undefined;
  if (!response.ok || !body?.access_token || !body.refresh_token) throw new PbsError(response.status, body, 'POST', url, response.headers);
  const now = Date.now();
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    expiresAt: now + (body.expires_in ?? 0) * 1000,
    refreshExpiresAt: now + (body.refresh_token_expires_in ?? 0) * 1000,
  };
}
