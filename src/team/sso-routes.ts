import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.js';
import { escapeHtml, htmlPage } from '../platform/http/html-page.js';
import { cookieValue } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { messageOf } from '../platform/values.js';
import { operatorCookie } from '../platform/http/operator-session.js';
import { secureCookie } from '../platform/http/same-origin.js';
import { SSO_COOKIE, type OperatorSso } from './sso.js';

const tags = ['operator sign-in'];

/**
 * Single sign-on through the configured OpenID Connect provider: `/operator/sso` sends the browser
 * there, `/operator/sso/callback` takes it back and starts a console session. Pages, not JSON: a
 * person's browser follows them.
 */
export function ssoRoutes(sso: OperatorSso | undefined, options: { publicUrl: string; sessionMs: number }) {
  const secure = (request: FastifyRequest) => secureCookie(request, options.publicUrl);
  // SameSite=Lax: the provider sends the browser back with a top-level GET from its own site.
  const attemptCookie = (value: string, request: FastifyRequest, maxAge = 600) =>
    `${SSO_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/operator/sso; Max-Age=${maxAge}${secure(request) ? '; Secure' : ''}`;
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/operator/sign-in-methods',
      {
        schema: {
          tags,
          summary: 'How operators sign in to the console here: a password and code, and single sign-on when configured',
          response: {
            200: {
              type: 'object',
              required: ['password', 'sso'],
              properties: {
                password: { type: 'boolean' },
                sso: {
                  type: ['object', 'null'],
                  required: ['name', 'url'],
                  properties: { name: { type: 'string' }, url: { type: 'string' } },
                },
              },
            },
          },
        },
      },
      async () => ({ password: true, sso: sso ? { name: sso.name, url: '/operator/sso' } : null }),
    );
    if (!sso) return;
    app.get(
      '/operator/sso',
      { schema: { tags, summary: 'Start single sign-on: a redirect to the identity provider' } },
      async (request, reply) => {
        try {
          const { url, cookieValue: value } = await sso.start();
          return reply.header('set-cookie', attemptCookie(value, request)).header('cache-control', 'no-store').redirect(url, 303);
        } catch (error) {
          request.log.warn({ err: error }, 'the identity provider could not be reached');
          return htmlPage(
            reply,
            503,
            'Sign-in unavailable',
            '<h1>The identity provider cannot be reached</h1><p class="note" role="alert">Try again in a moment, or sign in with your password and code.</p>',
          );
        }
      },
    );
    app.get(
      '/operator/sso/callback',
      { schema: { tags, summary: 'Where the identity provider sends the browser back: a console session, then the console' } },
      async (request, reply) => {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        try {
          const session = await sso.finish(query, cookieValue(request.headers.cookie, SSO_COOKIE), request.ip);
          return reply
            .header('set-cookie', [operatorCookie(session.value, options.sessionMs, secure(request)), attemptCookie('', request, 0)])
            .header('cache-control', 'no-store')
            .redirect('/console/', 303);
        } catch (error) {
          const why = error instanceof ApiError ? error.message : 'The identity provider’s answer could not be used.';
          if (!(error instanceof ApiError)) request.log.warn({ err: messageOf(error) }, 'single sign-on failed');
          return htmlPage(
            reply.header('set-cookie', attemptCookie('', request, 0)),
            error instanceof ApiError ? error.status : 400,
            'Sign-in failed',
            `<h1>You are not signed in</h1><p class="note" role="alert">${escapeHtml(why)}</p><p><a href="/console/">Back to the console</a></p>`,
          );
        }
      },
    );
  };
}
