import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { typedRoutes } from './typed-routes.js';
import { apiError } from '../errors.js';
import { operatorRoles, type Operator } from '../auth/operator.js';
import { cookieValue } from './portal-session.js';
import { secureCookie } from './same-origin.js';

/** The cookie an operator's console session travels in (HttpOnly, SameSite=Strict, Path=/admin). */
export const OPERATOR_COOKIE = 'pbs_operator';

/**
 * Console sessions (docs/security.md "Operator console"): the operator signs in once per browser
 * with the operator token, and gets a cookie instead of keeping the token in the page. The cookie
 * is `expiry.signature`, signed with a key derived from pbs's secret over the expiry and the
 * current operator token's hash: nothing is stored, and replacing the token (`pbs admin-token
 * reset`, or a new PBS_ADMIN_TOKEN) ends every session. Expiry is wall time, not the sandbox
 * clock: the operator moves that clock from the console itself.
 */
export class OperatorSessions {
  constructor(
    private readonly key: () => Promise<Buffer>,
    /** The current operator token's hash (undefined: none yet). */
    private readonly tokenHash: () => Promise<string | undefined>,
    private readonly lifetimeMs: number,
    private readonly wallNow: () => number = Date.now,
  ) {}

  private async signature(expires: number): Promise<string | undefined> {
    const hash = await this.tokenHash();
    if (hash === undefined) return undefined;
    return createHmac('sha256', await this.key())
      .update(`${expires}.${hash}`)
      .digest('base64url');
  }

  /** A new session: the cookie's value and when it ends (ms). */
  async issue(): Promise<{ value: string; expiresAt: number }> {
    const expiresAt = this.wallNow() + this.lifetimeMs;
    const signature = await this.signature(expiresAt);
    if (!signature) throw new Error('no operator token to sign a session with');
    return { value: `${expiresAt}.${signature}`, expiresAt };
  }

  /** When the session ends, if `value` is a live one. */
  async verify(value: string): Promise<number | undefined> {
    const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!match) return undefined;
    const expiresAt = Number(match[1]);
    if (expiresAt <= this.wallNow()) return undefined;
    const expected = await this.signature(expiresAt);
    if (!expected) return undefined;
    return timingSafeEqual(Buffer.from(match[2]), Buffer.from(expected)) ? expiresAt : undefined;
  }

  cookieFor(value: string, secure: boolean): string {
    return operatorCookie(value, this.lifetimeMs, secure);
  }
}

/** A console session's cookie, the bootstrap token's or an account's (HttpOnly, SameSite=Strict, Path=/admin). */
export function operatorCookie(value: string, lifetimeMs: number, secure: boolean): string {
  return `${OPERATOR_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=${Math.floor(lifetimeMs / 1000)}${secure ? '; Secure' : ''}`;
}

/** The cookie's clearing: the browser drops it at once. */
export const CLEARED = `${OPERATOR_COOKIE}=; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=0`;

const sessionAnswer = {
  type: 'object',
  required: ['expires_at', 'operator'],
  properties: {
    expires_at: { type: ['string', 'null'], description: 'When the console session ends; null: signed in with a token itself' },
    operator: {
      type: 'object',
      required: ['name', 'role', 'via', 'account_id'],
      properties: {
        name: { type: 'string', description: 'The account’s e-mail, or "bootstrap token"' },
        role: { type: 'string', enum: [...operatorRoles] },
        via: { type: 'string', enum: ['bootstrap', 'session', 'token'] },
        account_id: { type: ['string', 'null'] },
      },
    },
  },
} as const;

/** The signed-in operator, as the console reads it. */
export function whoAnswer(operator: Operator | undefined) {
  return {
    expires_at: operator?.sessionEnds === undefined ? null : new Date(operator.sessionEnds).toISOString(),
    operator: {
      name: operator?.name ?? '',
      role: operator?.role ?? 'viewer',
      via: operator?.via ?? 'token',
      account_id: operator?.accountId ?? null,
    },
  };
}

/**
 * Signing the console in with the bootstrap token, and any console session out; the operator
 * guard accepts the cookie beside a token. Accounts sign in with a password and code or SSO (the
 * team family's sign-in routes), which set the same cookie.
 */
export function operatorSessionRoutes(sessions: OperatorSessions, publicUrl: string, endAccountSession: (value: string) => Promise<void>) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const config = { operator: 'viewer' } as const;
    const tags = ['operator'];
    const security = [{ adminToken: [] }];
    app.post(
      '/admin/v1/session',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Sign a browser in: the bootstrap token (Authorization: Bearer) for an HttpOnly session cookie',
          response: { 200: sessionAnswer, 401: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request, reply) => {
        // Only the bootstrap token starts a session this way: a session cannot extend itself, and
        // an account signs in with its password and code (or SSO), not with a script's token.
        const operator = request.operator;
        if (operator?.via !== 'bootstrap' || operator.sessionEnds !== undefined)
          throw apiError('TOKEN_MISSING', 'Sign in with the bootstrap token (Authorization: Bearer), or with your account at /console.');
        const session = await sessions.issue();
        reply.header('set-cookie', sessions.cookieFor(session.value, secureCookie(request, publicUrl))).header('cache-control', 'no-store');
        return whoAnswer({ ...operator, sessionEnds: session.expiresAt });
      },
    );
    app.get(
      '/admin/v1/session',
      {
        config,
        schema: { tags, security, summary: 'Who is signed in, with what role, and until when', response: { 200: sessionAnswer } },
      },
      async (request) => whoAnswer(request.operator),
    );
    app.delete(
      '/admin/v1/session',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Sign this browser out (ends the session and clears its cookie)',
          response: { 204: { type: 'null' } },
        },
      },
      async (request, reply) => {
        const cookie = cookieValue(request.headers.cookie, OPERATOR_COOKIE);
        if (cookie !== undefined && request.operator?.via === 'session') await endAccountSession(cookie);
        return reply.code(204).header('set-cookie', CLEARED).send();
      },
    );
  };
}
