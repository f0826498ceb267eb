import { createHash, createHmac } from 'node:crypto';
import { businessUserScopes } from '../platform/auth/principal.js';

/**
 * The rules of a business user's authorization (docs/owners.md "Authorizing a partner"): which
 * scopes exist, which redirect URIs a code may go to, PKCE, lifetimes and how tokens look. Pure:
 * no database, no clock.
 */

/** A code is redeemed within five minutes of the consent (the original's lifetime). */
export const CODE_TTL_MS = 5 * 60_000;
/** Access tokens live seven days, refresh tokens a year, as the original's. */
export const ACCESS_TTL_SECONDS = 7 * 86_400;
export const REFRESH_TTL_SECONDS = 365 * 86_400;

/** The original's access tokens are 128 characters long; pbs's are too, and say what they are. */
export const USER_TOKEN_PREFIX = 'pbsu_';
const USER_TOKEN_LENGTH = 128;

/**
 * Scopes a partner may ask for. `leads` is served; the original's Respond to Reviews scopes are
 * accepted (real clients ask for them beside `leads`) and reach nothing in pbs.
 */
export const KNOWN_SCOPES: readonly string[] = [...businessUserScopes, 'r2r', 'r2r_get_businesses', 'r2r_business_owner'];

/** Longest authorization request value pbs reads (a URL or a PKCE challenge is far shorter). */
export const MAX_AUTHORIZE_VALUE = 2000;

/** The scopes of a space-separated `scope`, each once, or the unknown one that refuses it. */
export function parseScope(text: string | undefined): { scopes: string[] } | { problem: string } {
  const scopes = [...new Set((text ?? '').split(/[\s,]+/).filter((s) => s !== ''))];
  if (scopes.length === 0) return { problem: 'scope is required (space-separated; `leads` reads leads and replies to them)' };
  const unknown = scopes.find((s) => !KNOWN_SCOPES.includes(s));
  if (unknown !== undefined) return { problem: `Unknown scope "${unknown.slice(0, 50)}"; known: ${KNOWN_SCOPES.join(' ')}` };
  return { scopes };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why a code may not go to `uri`, or undefined when it may: an absolute http(s) URL without a
 * fragment (RFC 6749 §3.1.2), one of the partner's registered URIs when it registered any; a
 * sandbox partner that registered none may use loopback addresses (its app on its own machine,
 * as RFC 8252 §7.3 lets native apps).
 */
export function redirectProblem(uri: string, registered: readonly string[], sandbox: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'redirect_uri is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'redirect_uri must be an http or https URL';
  if (url.hash !== '' || uri.includes('#')) return 'redirect_uri must not have a fragment';
  if (registered.length > 0)
    return registered.includes(uri) ? undefined : 'redirect_uri is not one of the partner’s registered redirect URIs';
  if (sandbox && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return sandbox
    ? 'The partner has registered no redirect URI: the operator registers one (API or `pbs oauth redirect-uris`), or use a loopback address in the sandbox'
    : 'The partner has registered no redirect URI; the operator registers them (API or `pbs oauth redirect-uris`)';
}

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function registrationProblem(uri: string): string | undefined {
  if (uri.length > MAX_AUTHORIZE_VALUE) return `A redirect URI is at most ${MAX_AUTHORIZE_VALUE} characters`;
  return redirectProblem(uri, [uri], false);
}

const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 §4.3: the method (S256 or plain, plain when absent) of a challenge, or why it is refused. */
export function challengeMethod(
  challenge: string | undefined,
  method: string | undefined,
): { method: string | null } | { problem: string } {
  if (challenge === undefined) return method === undefined ? { method: null } : { problem: 'code_challenge_method without code_challenge' };
  if (!PKCE_VALUE.test(challenge)) return { problem: 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~' };
  const m = method ?? 'plain';
  if (m !== 'S256' && m !== 'plain') return { problem: 'code_challenge_method must be S256 or plain' };
  return { method: m };
}

/** RFC 7636 §4.6: whether the token request's verifier answers the authorization's challenge. */
export function verifierMatches(verifier: string | undefined, challenge: string, method: string): boolean {
  if (verifier === undefined || !PKCE_VALUE.test(verifier)) return false;
  const computed = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed === challenge;
}

/** A business user's token of `id` under `key`: the prefix and HMACs of the id, 128 characters. */
export function deriveUserToken(key: Buffer, id: string): string {
  const part = (n: number) => createHmac('sha512', key).update(`${id}:${n}`).digest('base64url');
  return (USER_TOKEN_PREFIX + part(1) + part(2)).slice(0, USER_TOKEN_LENGTH);
}

/** The redirect a code (or a refusal) travels on: the URI with its parameters added (RFC 6749 §4.1.2). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
