import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { throttledAuthentication, failureKey } from '../platform/http/auth-throttle.js';
import { operatorCookie, whoAnswer } from '../platform/http/operator-session.js';
import { secureCookie } from '../platform/http/same-origin.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import { apiError } from '../platform/errors.js';
import type { Team } from './team-service.js';
import { accountSchema, error, setupBody, signInBody } from './schemas.js';

const tags = ['operator sign-in'];

/**
 * Signing an operator account in to the console, and setting an invited account up (docs/security.md
 * "Operators and roles"). Anyone may call these: each is limited per address (the public limit),
 * and wrong passwords or codes per address and e-mail (the failed-authentication throttle).
 */
export function teamSignInRoutes(team: Team, options: { publicUrl: string; sessionMs: number; failures: FailureThrottle }) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/operator/sign-in',
      {
        schema: {
          tags,
          summary: 'Sign in to the console with an account’s e-mail, password and TOTP code: an HttpOnly session cookie',
          body: signInBody,
          response: { 200: { type: 'object', additionalProperties: true }, 401: error, 429: error },
        },
      },
      async (request, reply) => {
        const { email, password, totp_code: code } = request.body;
        const session = await throttledAuthentication(options.failures, failureKey(request.ip, `operator:${email.toLowerCase()}`), () =>
          team.signIn(email, password, code, request.ip),
        );
        reply
          .header('set-cookie', operatorCookie(session.value, options.sessionMs, secureCookie(request, options.publicUrl)))
          .header('cache-control', 'no-store');
        return whoAnswer(session.operator);
      },
    );
    app.post(
      '/operator/setup/begin',
      {
        schema: {
          tags,
          summary: 'Open a setup link: the TOTP secret to add to an authenticator app (and its otpauth:// URI)',
          body: { ...setupBody, properties: { setup_token: setupBody.properties.setup_token } },
          response: {
            200: {
              type: 'object',
              required: ['email', 'totp_secret', 'totp_uri'],
              properties: { email: { type: 'string' }, totp_secret: { type: 'string' }, totp_uri: { type: 'string' } },
            },
            401: error,
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return throttledAuthentication(options.failures, failureKey(request.ip, 'operator-setup'), () =>
          team.beginSetup(request.body.setup_token),
        );
      },
    );
    app.post(
      '/operator/setup/finish',
      {
        schema: {
          tags,
          summary: 'Finish a setup link: the account’s password and a code from the new authenticator; the link is used up',
          body: { ...setupBody, required: ['setup_token', 'password', 'totp_code'] },
          response: { 200: accountSchema, 400: error, 401: error },
        },
      },
      async (request) => {
        const { setup_token: token, password, totp_code: code } = request.body;
        if (password === undefined || code === undefined) throw apiError('VALIDATION_ERROR', 'password and totp_code are required.');
        return throttledAuthentication(options.failures, failureKey(request.ip, 'operator-setup'), () =>
          team.finishSetup(token, password, code),
        );
      },
    );
  };
}
