import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { typedRoutes } from './typed-routes.js';
import { apiError } from '../errors.js';

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
    return `${OPERATOR_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=${Math.floor(this.lifetimeMs / 1000)}${secure ? '; Secure' : ''}`;
  }
}

/** The cookie's clearing: the browser drops it at once. */
const CLEARED = `${OPERATOR_COOKIE}=; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=0`;

const sessionAnswer = {
  type: 'object',
  required: ['expires_at'],
  properties: {
    expires_at: { type: ['string', 'null'], description: 'When the console session ends; null: signed in with the token itself' },
  },
} as const;

/** Signing the console in and out; the admin guard accepts the cookie beside the token. */
export function operatorSessionRoutes(sessions: OperatorSessions, publicUrl: string) {
  const secure = (request: FastifyRequest) => request.protocol === 'https' || publicUrl.startsWith('https:');
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const config = { admin: true };
    const tags = ['operator'];
    const security = [{ adminToken: [] }];
    app.post(
      '/admin/v1/session',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Sign a browser in: the operator token (Authorization: Bearer) for an HttpOnly session cookie',
          response: { 200: sessionAnswer, 401: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request, reply) => {
        // Only the token starts a session: a session cannot extend itself.
        if (request.operatorSessionEnds !== undefined)
          throw apiError('TOKEN_MISSING', 'Sign in with the operator token (Authorization: Bearer).');
        const session = await sessions.issue();
        reply.header('set-cookie', sessions.cookieFor(session.value, secure(request))).header('cache-control', 'no-store');
        return { expires_at: new Date(session.expiresAt).toISOString() };
      },
    );
    app.get(
      '/admin/v1/session',
      {
        config,
        schema: { tags, security, summary: 'Whether this browser is signed in, and until when', response: { 200: sessionAnswer } },
      },
      async (request) => {
        const cookie = request.operatorSessionEnds;
        return { expires_at: cookie === undefined ? null : new Date(cookie).toISOString() };
      },
    );
    app.delete(
      '/admin/v1/session',
      {
        config,
        schema: { tags, security, summary: 'Sign this browser out (clears the session cookie)', response: { 204: { type: 'null' } } },
      },
      async (_request, reply) => reply.code(204).header('set-cookie', CLEARED).send(),
    );
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when an operator request was authenticated by a console session cookie: when it ends (ms). */
    operatorSessionEnds?: number;
  }
}
