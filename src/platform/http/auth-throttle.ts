import { ApiError } from '../errors.js';
import { throttled, type FailureThrottle } from '../rate-limit.js';

/**
 * Runs `authenticate` and counts a wrong secret against the pair (client address, identity):
 * past the limit a wrong secret answers 429 with Retry-After instead of 401. The secret is
 * always checked first, so the right one always passes: from another address, from the same
 * address, and for any other identity (docs/security.md, "Guessing credentials").
 */
export async function throttledAuthentication<T>(throttle: FailureThrottle, key: string, authenticate: () => T | Promise<T>): Promise<T> {
  try {
    return await authenticate();
  } catch (error) {
    if (!(error instanceof ApiError && (error.code === 'TOKEN_INVALID' || error.code === 'INVALID_CLIENT'))) throw error;
    const wait = throttle.waitFor(key);
    throttle.fail(key);
    if (wait > 0) throw throttled(wait, `Too many failed authentication attempts; retry in ${wait} seconds.`);
    throw error;
  }
}

/** The pair a failure counts against: who calls (the client address) and whom it claims to be. */
export function failureKey(address: string, identity: string): string {
  return `${address}|${identity}`;
}
