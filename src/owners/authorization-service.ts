import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId, randomBase62, sha256Hex } from '../platform/ids.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import {
  ACCESS_TTL_SECONDS,
  challengeMethod,
  CODE_TTL_MS,
  deriveUserToken,
  parseScope,
  redirectProblem,
  redirectWith,
  REFRESH_TTL_SECONDS,
  registrationProblem,
  verifierMatches,
} from './authorization-rules.js';
import { GrantStore, type Grant, type TokenReach } from './grant-store.js';
import { OwnerStore } from './owner-store.js';

/** A partner's OAuth client, as the partners family finds it by its id. */
export interface OauthClient {
  credentialId: string;
  partnerId: string;
  partnerName: string;
}

/** What the owners family asks of the partners family. */
export interface OauthClients {
  /** The live client of an id (its partner active); undefined when none. */
  find(clientId: string): Promise<OauthClient | undefined>;
}

/** An authorization request that may be shown to the business user. */
export interface AuthorizationRequest {
  client: OauthClient;
  clientId: string;
  redirectUri: string;
  redirectGiven: boolean;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | null;
}

/**
 * How an authorization request is judged (RFC 6749 §4.1.2.1): a request whose client or
 * redirect URI cannot be trusted is refused on pbs's own page; any other fault goes back to the
 * partner's redirect URI as `error=…`.
 */
export type AuthorizationCheck = { ok: AuthorizationRequest } | { page: string } | { redirect: string };

/** Most redirect URIs a partner registers. */
export const MAX_REDIRECT_URIS = 20;
/** Business users offered on the sandbox's sign-in (the first by name; any other is typed). */
const SIGN_IN_CHOICES = 50;

/**
 * Per-partner bounds (a sandbox partner looping over the flow cannot grow the tables without
 * end): live authorizations per business user (and as many revoked ones kept for the operator's
 * view), and per authorization its live access tokens
 * (the oldest revoked past it) and the replaced refresh tokens kept to tell one presented again.
 */
export const MAX_GRANTS_PER_USER = 100;
const TOKEN_LIMITS = { liveAccess: 100, replacedRefresh: 20 };

/** The token endpoint's versions: v2 returns the live refresh token again, v3 replaces it on every refresh. */
export type TokenVersion = 'v2' | 'v3';

/**
 * A business user's authorization of a partner (docs/owners.md): the authorization code flow
 * with PKCE, its codes and tokens, and what a token reaches. The token endpoint itself is the
 * partners family's, which authenticates the client and hands the grant here.
 */
export class BusinessUserAuthorization {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly clients: OauthClients,
    private readonly keys: SecretKeys,
    private readonly sandbox: boolean,
  ) {}

  private grants(db: DbOrTx = this.database.db) {
    return new GrantStore(db, this.database.dialect);
  }

  /** The partner's registered redirect URIs. */
  redirectUris(partnerId: string): Promise<string[]> {
    return this.grants().redirectUris(partnerId);
  }

  /** Replaces the partner's registered redirect URIs (an empty list: none). */
  async setRedirectUris(partnerId: string, uris: string[]): Promise<string[]> {
    const unique = [...new Set(uris)];
    if (unique.length > MAX_REDIRECT_URIS)
      throw apiError('VALIDATION_ERROR', `At most ${MAX_REDIRECT_URIS} redirect URIs`, { field: 'redirect_uris' });
    for (const [i, uri] of unique.entries()) {
      const problem = registrationProblem(uri);
      if (problem) throw apiError('VALIDATION_ERROR', problem, { field: `redirect_uris[${i}]` });
    }
    await this.database.transact((trx) => this.grants(trx).replaceRedirectUris(partnerId, unique, this.clock.now()));
    return this.redirectUris(partnerId);
  }

  /** Judges `GET /oauth2/authorize`'s parameters. */
  async check(query: Record<string, string | undefined>): Promise<AuthorizationCheck> {
    const clientId = query.client_id;
    if (!clientId) return { page: 'The authorization request names no client_id: the app that sent you here is misconfigured.' };
    const client = await this.clients.find(clientId);
    if (!client)
      return { page: 'The app that sent you here is not a known partner client (its client_id is unknown, revoked or disabled).' };
    const registered = await this.redirectUris(client.partnerId);
    const given = query.redirect_uri || undefined;
    const redirectGiven = given !== undefined;
    const redirectUri = given ?? (registered.length === 1 ? registered[0] : undefined);
    if (redirectUri === undefined)
      return {
        page: registered.length
          ? 'The app named no redirect_uri and has several registered: it must say which.'
          : 'The app named no redirect_uri and has none registered.',
      };
    const problem = redirectProblem(redirectUri, registered, this.sandbox);
    if (problem) return { page: `The app asked to send you back to an address pbs may not send codes to: ${problem}.` };
    const back = (error: string, description: string) => ({
      redirect: redirectWith(redirectUri, { error, error_description: description, state: query.state }),
    });
    if (query.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
    const scope = parseScope(query.scope);
    if ('problem' in scope) return back('invalid_scope', scope.problem);
    const pkce = challengeMethod(query.code_challenge, query.code_challenge_method);
    if ('problem' in pkce) return back('invalid_request', pkce.problem);
    return {
      ok: {
        client,
        clientId,
        redirectUri,
        redirectGiven,
        scopes: scope.scopes,
        state: query.state,
        codeChallenge: query.code_challenge,
        codeChallengeMethod: pkce.method,
      },
    };
  }

  /** Business users the sandbox's sign-in offers (name order); `total` says how many there are. */
  async signInChoices() {
    const store = new OwnerStore(this.database.db);
    const users = await store.users(SIGN_IN_CHOICES, 0);
    return { users: users.map((u) => ({ id: u.id, name: u.name, email: u.email })), total: await store.count() };
  }

  /** The business user of an id or e-mail address, or undefined. */
  async findUser(idOrEmail: string) {
    const store = new OwnerStore(this.database.db);
    return (await store.user(idOrEmail)) ?? (await store.userByEmail(idOrEmail.trim().toLowerCase()));
  }

  /** The business user consented: a code for the partner, on the way back to its redirect URI. */
  async approve(request: AuthorizationRequest, userId: string): Promise<string> {
    const code = randomBase62(43);
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const store = this.grants(trx);
      if ((await store.pruneGrants(request.client.partnerId, userId, now, MAX_GRANTS_PER_USER)) >= MAX_GRANTS_PER_USER)
        throw apiError(
          'QUOTA_EXCEEDED',
          `This business user has ${MAX_GRANTS_PER_USER} live authorizations of this partner; revoke some (POST /oauth2/revoke) first`,
        );
      await store.insertGrant({
        id: newId(),
        partner_id: request.client.partnerId,
        credential_id: request.client.credentialId,
        user_id: userId,
        scope: request.scopes.join(' '),
        code_hash: sha256Hex(code),
        code_expires_at: now + CODE_TTL_MS,
        code_used_at: null,
        redirect_uri: request.redirectUri,
        redirect_given: request.redirectGiven ? 1 : 0,
        code_challenge: request.codeChallenge ?? null,
        code_challenge_method: request.codeChallengeMethod,
        created_at: now,
        revoked_at: null,
      });
    });
    return redirectWith(request.redirectUri, { code, state: request.state });
  }

  /** The business user declined (RFC 6749 §4.1.2.1 access_denied). */
  deny(request: AuthorizationRequest): string {
    return redirectWith(request.redirectUri, {
      error: 'access_denied',
      error_description: 'The business user declined',
      state: request.state,
    });
  }

  /**
   * `grant_type=authorization_code`: the code, once, within five minutes, by the client it was
   * issued to, with the same redirect URI and the PKCE verifier. A code redeemed twice revokes
   * what the first redemption gave (RFC 6749 §4.1.2).
   */
  async redeemCode(client: OauthClient, form: { code?: string; redirect_uri?: string; code_verifier?: string }) {
    if (!form.code) throw apiError('INVALID_REQUEST', 'code is required', { field: 'code' });
    const now = this.clock.now();
    const code = form.code;
    // Read before the transaction: on SQLite a read beside an open transaction waits for it.
    const key = await this.keys.key('business-user-tokens');
    const outcome = await this.database.transact(async (trx) => {
      const store = this.grants(trx);
      const grant = await store.lockGrantByCode(sha256Hex(code));
      if (!grant || grant.credential_id !== client.credentialId) return { refused: 'The code is unknown or was issued to another client' };
      if (grant.code_used_at !== null) {
        await store.updateGrant(grant.id, { revoked_at: grant.revoked_at ?? now });
        await store.revokeTokens(grant.id, undefined, now);
        return { refused: 'The code was already used; the tokens it gave are revoked', revoked: true };
      }
      if (grant.revoked_at !== null) return { refused: 'The authorization was revoked' };
      if (grant.code_expires_at <= now) return { refused: 'The code expired (codes last five minutes)' };
      const redirectRefusal = redirectMismatch(grant, form.redirect_uri);
      if (redirectRefusal) return { refused: redirectRefusal };
      if (grant.code_challenge !== null) {
        if (!verifierMatches(form.code_verifier, grant.code_challenge, grant.code_challenge_method ?? 'plain'))
          return { refused: 'code_verifier does not match the code_challenge of the authorization (PKCE)' };
      }
      await store.updateGrant(grant.id, { code_used_at: now });
      return { tokens: await issue(store, key, grant, undefined, now) };
    });
    if ('refused' in outcome) throw apiError('INVALID_GRANT', outcome.refused);
    return tokenAnswer(outcome.tokens, now);
  }

  /**
   * `grant_type=refresh_token`: a new access token. v2 returns the live refresh token again; v3
   * replaces it, and a refresh token presented after it was replaced or expired revokes the one
   * live in its place (the original's rule: a stolen old token ends the chain).
   */
  async refresh(client: OauthClient, form: { refresh_token?: string }, version: TokenVersion) {
    if (!form.refresh_token) throw apiError('INVALID_REQUEST', 'refresh_token is required', { field: 'refresh_token' });
    const now = this.clock.now();
    const hash = sha256Hex(form.refresh_token);
    const key = await this.keys.key('business-user-tokens');
    const outcome = await this.database.transact(async (trx) => {
      const store = this.grants(trx);
      const token = await store.tokenByHash(hash);
      if (!token || token.kind !== 'refresh') return { refused: 'The refresh token is unknown' };
      const grant = await store.lockGrant(token.grant_id);
      if (!grant || grant.credential_id !== client.credentialId) return { refused: 'The refresh token was issued to another client' };
      if (grant.revoked_at !== null) return { refused: 'The authorization was revoked' };
      if (!(await new OwnerStore(trx).user(grant.user_id))) return { refused: 'The business user no longer exists' };
      if (token.revoked_at !== null || token.expires_at <= now) {
        if (version === 'v3') await store.revokeTokens(grant.id, 'refresh', now);
        return { refused: token.revoked_at !== null ? 'The refresh token was replaced or revoked' : 'The refresh token expired' };
      }
      if (version === 'v3') await store.revokeToken(token.id, now);
      return { tokens: await issue(store, key, grant, version === 'v2' ? token : undefined, now) };
    });
    if ('refused' in outcome) throw apiError('INVALID_GRANT', outcome.refused);
    return tokenAnswer(outcome.tokens, now);
  }

  /** What a business user's access token reaches, or undefined when it is not live (the credential verifier asks). */
  reachOf(token: string): Promise<TokenReach | undefined> {
    return this.grants().liveAccess(sha256Hex(token), this.clock.now());
  }

  /** Whether a business user manages a business (a token reaches only those). */
  manages(userId: string, businessId: string): Promise<boolean> {
    return new OwnerStore(this.database.db).manages(userId, businessId);
  }
}

/** A new access token of the grant, and a refresh token: `keep` again, or a new one. */
async function issue(store: GrantStore, key: Buffer, grant: Grant, keep: { id: string; expires_at: number } | undefined, now: number) {
  await store.pruneTokens(grant.id, now, TOKEN_LIMITS);
  const mint = async (kind: 'access' | 'refresh', ttlSeconds: number) => {
    const id = newId();
    const token = deriveUserToken(key, id);
    const expires = now + ttlSeconds * 1000;
    await store.insertToken({
      id,
      grant_id: grant.id,
      kind,
      token_hash: sha256Hex(token),
      created_at: now,
      expires_at: expires,
      revoked_at: null,
    });
    return { token, expires };
  };
  const access = await mint('access', ACCESS_TTL_SECONDS);
  const refresh = keep ? { token: deriveUserToken(key, keep.id), expires: keep.expires_at } : await mint('refresh', REFRESH_TTL_SECONDS);
  return { access: access.token, accessExpires: access.expires, refresh: refresh.token, refreshExpires: refresh.expires };
}

/** RFC 6749 §4.1.3: the token request repeats the redirect URI the authorization request named. */
function redirectMismatch(grant: Grant, given: string | undefined): string | undefined {
  if (given === undefined || given === '')
    return grant.redirect_given ? 'redirect_uri is required: the authorization request named one' : undefined;
  return given === grant.redirect_uri ? undefined : 'redirect_uri differs from the one of the authorization request';
}

/** The token endpoint's answer (docs/owners.md "Tokens"): the original's fields, with both refresh-token fields in v2 and v3. */
function tokenAnswer(tokens: { access: string; accessExpires: number; refresh: string; refreshExpires: number }, now: number) {
  return {
    access_token: tokens.access,
    token_type: 'Bearer' as const,
    expires_in: Math.max(0, Math.floor((tokens.accessExpires - now) / 1000)),
    expires_on: toIsoOffset(tokens.accessExpires),
    refresh_token: tokens.refresh,
    refresh_token_expires_in: Math.max(0, Math.floor((tokens.refreshExpires - now) / 1000)),
    refresh_token_expires_on: toIsoOffset(tokens.refreshExpires),
  };
}
