import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, apiError } from '../platform/errors.js';
import { escapeHtml, htmlPage, PAGE_BODY_LIMIT, wantsPage } from '../platform/http/html-page.js';
import { cookieChangeRefusal, secureCookie } from '../platform/http/same-origin.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { isRecord } from '../platform/values.js';
import type { Portal } from './portal.js';

const tags = ['portal'];
const LINK_SIGN_IN = '/portal/sign-in/link';

/** Why a link could not sign in, in words for the person who opened it (fixed texts: nothing they sent is shown). */
function refusalPage(reply: FastifyReply, refusal: ApiError) {
  const why =
    refusal.code === 'AUTHORIZATION_ERROR' && /disabled/.test(refusal.message)
      ? 'The partner this link is for is disabled, so it has no portal. Ask your platform operator to enable it.'
      : refusal.code === 'AUTHORIZATION_ERROR'
        ? 'This sign-in did not come from the portal’s own page. Open the link again and press the button there.'
        : 'This link was already used, or it is more than 15 minutes old. Each link signs in once: ask your platform operator for a new one.';
  return htmlPage(
    reply,
    refusal.status,
    'Portal link not valid',
    `<h1>This link cannot sign you in</h1><p class="note" role="alert">${escapeHtml(why)}</p>`,
  );
}

/**
 * Signing in with a portal link (docs/request-log.md "Portal"). Opening the link (a GET) only
 * shows a page with a button; pressing it (a POST from that page) spends the link and starts the
 * session. A link preview or a mail scanner that fetches the link spends nothing.
 */
export function portalSignInRoutes(portal: Portal, publicUrl: string) {
  const publicOrigin = new URL(publicUrl).origin;
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/portal/sign-in',
      {
        schema: {
          tags,
          summary: 'The page a portal link opens: its button signs in (the link is spent only then)',
          querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 100 } } },
          response: { 200: { type: 'string', description: 'The sign-in page (HTML)' } },
        },
      },
      async (request, reply) => {
        const token = request.query.token;
        if (!token || !/^[A-Za-z0-9]+$/.test(token)) {
          const incomplete = apiError('TOKEN_INVALID', 'This portal link is incomplete; open it as the operator gave it.', { status: 400 });
          if (wantsPage(request)) return refusalPage(reply, incomplete);
          throw incomplete;
        }
        return htmlPage(
          reply,
          200,
          'Sign in to the partner portal',
          '<h1>Sign in to the partner portal</h1>' +
            '<p>This link signs you in once. Press the button to start your session.</p>' +
            `<form method="post" action="${LINK_SIGN_IN}"><input type="hidden" name="token" value="${escapeHtml(token)}">` +
            '<button type="submit">Sign in</button></form>',
          // Its form's origin is checked: the browser must send it (no-referrer would send `Origin: null`).
          { referrerPolicy: 'same-origin' },
        );
      },
    );
    app.post(
      LINK_SIGN_IN,
      {
        bodyLimit: PAGE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Spend a portal link for a session (the sign-in page’s form): sets the HttpOnly session cookie, then redirects',
          consumes: ['application/x-www-form-urlencoded'],
          response: {
            303: { type: 'null', description: 'Signed in: the session cookie is set, and the portal’s pages open' },
            401: {
              $ref: 'ErrorResponse#',
              description: 'The link is used, expired or unknown (a browser, asking for HTML, gets a page saying so)',
            },
            403: { $ref: 'ErrorResponse#', description: 'The partner is disabled, or the form came from another site' },
          },
        },
        config: { docs: { body: { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 100 } } } } },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        const token = isRecord(request.body) && typeof request.body.token === 'string' ? request.body.token : '';
        try {
          // Another site's page must not sign a browser in to a session of its choosing.
          const refusal = cookieChangeRefusal(request, publicOrigin);
          if (refusal) throw apiError('AUTHORIZATION_ERROR', refusal);
          const session = await portal.exchange(token);
          return reply.header('set-cookie', portal.cookieFor(session.token, secureCookie(request, publicUrl))).redirect('/portal', 303);
        } catch (refused) {
          if (refused instanceof ApiError && refused.status < 500 && wantsPage(request)) return refusalPage(reply, refused);
          throw refused;
        }
      },
    );
  };
}
