import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, htmlPage, PAGE_BODY_LIMIT, wantsPage } from '../platform/http/html-page.js';
import { apiError, type ErrorCode } from '../platform/errors.js';
import { cookieChangeRefusal } from '../platform/http/same-origin.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { bodyObject, single } from '../platform/query.js';
import { MAX_AUTHORIZE_VALUE } from './authorization-rules.js';
import type { AuthorizationRequest, BusinessUserAuthorization } from './authorization-service.js';
import type { BusinessUserService } from './owner-service.js';
import { failureKey } from '../platform/http/auth-throttle.js';
import type { FailureThrottle } from '../platform/rate-limit.js';

const tags = ['oauth'];
const AUTHORIZE = '/oauth2/authorize';
/** The authorization request's parameters, carried from the consent page to its form's answer. */
/** Business users offered as one-click buttons in the sandbox (the demo has six). */
const ONE_CLICK_USERS = 10;
const REQUEST_FIELDS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** What each scope lets the partner do, in the business user's words. */
const SCOPE_WORDS: Record<string, string> = {
  leads: 'Read your leads (requests for a quote) and their conversations, and reply to them for you.',
  r2r: 'Respond to reviews (not served by this platform).',
  r2r_get_businesses: 'List the businesses you manage, for responding to reviews (not served by this platform).',
  r2r_business_owner: 'Respond to reviews as the business owner (not served by this platform).',
};

/** An authorization that cannot go on: a page for a browser, the catalogue's 400 for a program. */
const refused = (request: FastifyRequest, reply: FastifyReply, why: string) => {
  if (!wantsPage(request)) throw apiError('INVALID_REQUEST', why);
  return htmlPage(
    reply,
    400,
    'Authorization refused',
    `<h1>This authorization cannot go on</h1><p class="note" role="alert">${escapeHtml(why)}</p>`,
  );
};

/**
 * The business user's side of the authorization code flow (docs/owners.md "Authorizing a
 * partner"): `GET /oauth2/authorize` shows who asks for what and lets the business user sign in
 * and consent; the page's form answers with a redirect to the partner's app carrying the code
 * (or `error=access_denied`). In the sandbox, signing in is choosing a business user.
 */
export function authorizeRoutes(
  authorization: BusinessUserAuthorization,
  users: BusinessUserService,
  options: { publicUrl: string; sandbox: boolean; failures: FailureThrottle },
) {
  const publicOrigin = new URL(options.publicUrl).origin;

  /** The sandbox picks a business user; production asks for their address and password. */
  async function signInFields(): Promise<string> {
    if (!options.sandbox)
      return (
        '<label for="email">Your e-mail address</label><input id="email" name="email" type="email" autocomplete="username" required>' +
        '<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>'
      );
    const choices = await authorization.signInChoices();
    const listed = choices.users
      .map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(u.name)} — ${escapeHtml(u.email)}</option>`)
      .join('');
    const oneClick = choices.users
      .slice(0, ONE_CLICK_USERS)
      .map((u) => `<li><button type="submit" name="as" value="${escapeHtml(u.id)}">Allow as ${escapeHtml(u.name)}</button></li>`)
      .join('');
    return (
      '<p class="note">Sandbox sign-in: choose the business user to act as (no password in the sandbox).</p>' +
      `<ul class="one-click" data-testid="sign-in-as">${oneClick}</ul>` +
      `<label for="user">…or pick one of all ${choices.total}, then Allow</label><select id="user" name="user_id">${listed}</select>` +
      '<label for="email">…or type another one’s e-mail address or id</label><input id="email" name="user" autocomplete="off">'
    );
  }

  async function consentPage(
    reply: FastifyReply,
    request: AuthorizationRequest,
    query: Record<string, string | undefined>,
    problem?: { status: number; text: string },
  ) {
    const hidden = REQUEST_FIELDS.filter((f) => query[f] !== undefined && query[f] !== '')
      .map((f) => `<input type="hidden" name="${f}" value="${escapeHtml(query[f])}">`)
      .join('');
    const scopes = request.scopes.map((s) => `<li><strong>${escapeHtml(s)}</strong>: ${escapeHtml(SCOPE_WORDS[s] ?? s)}</li>`).join('');
    return htmlPage(
      reply,
      problem?.status ?? 200,
      `Authorize ${request.client.partnerName}`,
      `<h1>${escapeHtml(request.client.partnerName)} asks to act for you</h1>` +
        (problem ? `<p class="note" role="alert">${escapeHtml(problem.text)}</p>` : '') +
        `<p>It asks for:</p><ul>${scopes}</ul>` +
        `<p>It reaches only the businesses you manage. After you answer, you go back to <code>${escapeHtml(new URL(request.redirectUri).origin)}</code>.</p>` +
        `<form method="post" action="${AUTHORIZE}">${hidden}${await signInFields()}` +
        '<p><button type="submit" name="decision" value="approve">Allow</button> ' +
        '<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p></form>',
      { referrerPolicy: 'same-origin', formTarget: new URL(request.redirectUri).origin },
    );
  }

  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const value = { type: 'string', maxLength: MAX_AUTHORIZE_VALUE } as const;
    app.get(
      AUTHORIZE,
      {
        schema: {
          tags,
          summary: 'A business user authorizes a partner’s app (authorization code flow with PKCE)',
          description:
            'Opened in the business user’s browser by the partner’s app: `client_id`, `response_type=code`, `scope` (space-separated; ' +
            '`leads`), `redirect_uri` (optional when one is registered), `state`, and PKCE `code_challenge` with `code_challenge_method` ' +
            '(`S256` or `plain`). The page lets the business user sign in and allow or deny; the answer redirects to `redirect_uri` ' +
            'with `code` (single use, 5 minutes) and `state`, or with `error`. An unknown client or a redirect URI pbs may not use is ' +
            'refused on this page, never redirected.',
          querystring: { type: 'object', properties: Object.fromEntries(REQUEST_FIELDS.map((f) => [f, value])) },
          response: {
            200: { type: 'string', description: 'The consent page (HTML)' },
            302: { type: 'null', description: 'Back to the redirect URI with `error` (RFC 6749 §4.1.2.1)' },
            400: {
              $ref: 'ErrorResponse#',
              description: 'An unknown client or an unusable redirect URI (an HTML page for a browser, else this error)',
            },
          },
        },
      },
      async (request, reply) => {
        const query: Record<string, string | undefined> = { ...request.query };
        const check = await authorization.check(query);
        if ('page' in check) return refused(request, reply, check.page);
        if ('redirect' in check) return reply.header('referrer-policy', 'no-referrer').redirect(check.redirect, 302);
        return consentPage(reply, check.ok, query);
      },
    );
    app.post(
      AUTHORIZE,
      {
        bodyLimit: PAGE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'The consent page’s answer: redirects to the partner’s app with a code, or with error=access_denied',
          consumes: ['application/x-www-form-urlencoded'],
          response: {
            303: { type: 'null', description: 'Back to the redirect URI with `code` and `state`, or `error`' },
            400: {
              $ref: 'ErrorResponse#',
              description: 'The request cannot go on, or the business user is unknown (an HTML page for a browser, else this error)',
            },
            401: {
              $ref: 'ErrorResponse#',
              description: 'Production: a wrong e-mail address or password (an HTML page for a browser, else this error)',
            },
            429: {
              $ref: 'ErrorResponse#',
              description:
                'Production: too many failed sign-ins from this address for this e-mail (an HTML page for a browser, else this error)',
            },
            403: {
              $ref: 'ErrorResponse#',
              description: 'The answer did not come from pbs’s own consent page (an HTML page for a browser, else this error)',
            },
          },
        },
        config: {
          docs: {
            body: {
              type: 'object',
              properties: {
                ...Object.fromEntries(REQUEST_FIELDS.map((f) => [f, value])),
                decision: { type: 'string', enum: ['approve', 'deny'] },
                user_id: { type: 'string' },
                user: { type: 'string', description: 'Sandbox: a business user’s e-mail address or id (wins over user_id when given)' },
                email: { type: 'string', description: 'Production: the business user’s e-mail address' },
                password: { type: 'string', description: 'Production: their password' },
              },
            },
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        const body = bodyObject(request.body);
        const field = (name: string) => {
          const v = single(body[name]);
          return v === undefined || v.length > MAX_AUTHORIZE_VALUE ? undefined : v;
        };
        // Another site's page must not answer for the business user.
        const refusal = cookieChangeRefusal(request, publicOrigin);
        if (refusal && !wantsPage(request)) throw apiError('AUTHORIZATION_ERROR', refusal);
        if (refusal)
          return htmlPage(
            reply,
            403,
            'Authorization refused',
            `<h1>This answer was not sent from pbs’s page</h1><p class="note" role="alert">${escapeHtml(refusal)}</p>`,
          );
        const query = Object.fromEntries(REQUEST_FIELDS.map((f) => [f, field(f)]));
        const check = await authorization.check(query);
        if ('page' in check) return refused(request, reply, check.page);
        if ('redirect' in check) return reply.redirect(check.redirect, 303);
        if (field('decision') === 'deny') return reply.redirect(authorization.deny(check.ok), 303);
        // The sandbox's one-click "Allow as …" buttons name the business user themselves.
        const chosen = options.sandbox ? field('as') : undefined;
        const oneClick = chosen ? await authorization.findUser(chosen) : undefined;
        if (oneClick) return reply.redirect(await authorization.approve(check.ok, oneClick.id), 303);
        /** The consent page again with what went wrong, or for a program the catalogue's error. */
        const again = (code: ErrorCode, status: number, text: string, headers: Record<string, string> = {}) => {
          if (!wantsPage(request)) throw apiError(code, text, { status, headers });
          return consentPage(reply.headers(headers), check.ok, query, { status, text });
        };
        if (field('decision') !== 'approve') return again('VALIDATION_ERROR', 400, 'Choose Allow or Deny.');
        if (!options.sandbox) {
          // The right password always passes; past repeated failures a wrong one is 429 (docs/security.md, "Guessing credentials").
          const email = field('email')?.trim().toLowerCase() ?? '';
          const user = await users.signIn(email, field('password') ?? '');
          if (user) return reply.redirect(await authorization.approve(check.ok, user.id), 303);
          const key = failureKey(request.ip, `business-user:${email}`);
          const wait = options.failures.waitFor(key);
          options.failures.fail(key);
          if (wait > 0)
            return again('TOO_MANY_REQUESTS_PER_SECOND', 429, `Too many failed sign-ins: try again in ${wait} seconds.`, {
              'retry-after': String(wait),
            });
          return again('TOKEN_INVALID', 401, 'Wrong e-mail address or password.');
        }
        const typed = field('user')?.trim();
        const named = typed || field('user_id');
        const user = named ? await authorization.findUser(named) : undefined;
        if (!user) return again('VALIDATION_ERROR', 400, named ? `No business user ${named}.` : 'Choose a business user.');
        return reply.redirect(await authorization.approve(check.ok, user.id), 303);
      },
    );
  };
}
