import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { apiError } from '../errors.js';
import { cookieChangeRefusal } from './same-origin.js';

/** The cookie a portal session travels in (HttpOnly, SameSite=Strict, Path=/portal). */
export const PORTAL_COOKIE = 'pbs_portal';

/** A verified portal session: the partner it belongs to. */
export interface PortalSession {
  partnerId: string;
  sessionId: string;
}

/** Implemented by the workbench family: whose session a cookie's token is. */
export interface PortalSessionVerifier {
  verify(token: string): Promise<PortalSession | undefined>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A partner portal route: requires a portal session (the partner's own data only). */
    portal?: boolean;
  }
  interface FastifyRequest {
    portal?: PortalSession;
  }
}

/** The value of cookie `name` in a Cookie header, if sent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The portal session of a request, verified; throws 401 without one. */
export function portalOf(request: FastifyRequest): PortalSession {
  if (!request.portal) throw new Error(`${request.method} ${request.url} has no portal declaration, so no session`);
  return request.portal;
}

/** Limits of the portal guard: per client address before a session is known, then per session. */
export interface PortalLimits {
  /** pbs's public origin (PBS_PUBLIC_URL's), which a change may come from (see cookieChangeRefusal). */
  publicOrigin: string;
  /** Throws when the address has sent too many requests without a live session. */
  perAddress(request: FastifyRequest): void;
  /** Throws when the session has sent too many requests. */
  perSession(sessionId: string): void;
}

/**
 * The guard of portal routes: a session cookie, and for a change a request from the portal's own
 * pages. The cookie is SameSite=Strict (a browser sends it on no cross-site request); the origin
 * check refuses a change a page of another site sends anyway (docs/request-log.md "Portal").
 * A signed-in session has a rate limit of its own; requests without one share their address's.
 */
export function portalGuard(verifier: PortalSessionVerifier, limits: PortalLimits): onRequestHookHandler {
  return async function portalSession(request) {
    const refusal = cookieChangeRefusal(request, limits.publicOrigin);
    if (refusal) throw apiError('AUTHORIZATION_ERROR', `Portal changes are accepted from the portal’s own pages only: ${refusal}.`);
    const token = cookieValue(request.headers.cookie, PORTAL_COOKIE);
    if (!token) {
      limits.perAddress(request);
      throw apiError('TOKEN_MISSING', 'Sign in to the portal first: ask the operator for a portal link.');
    }
    const session = await verifier.verify(token);
    if (!session) {
      limits.perAddress(request);
      throw apiError(
        'TOKEN_INVALID',
        'The portal session has ended (expired, signed out, revoked, a credential rotated, or the partner disabled); ask for a new portal link.',
      );
    }
    limits.perSession(session.sessionId);
    request.portal = session;
  };
}
