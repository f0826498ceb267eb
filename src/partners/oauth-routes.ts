import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { decodeBasic } from '../platform/http/authenticate.js';
import { failureKey, throttledAuthentication } from '../platform/http/auth-throttle.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import { apiError } from '../platform/errors.js';
import type { CredentialService } from './credential-service.js';
import { bodyObject, single } from '../platform/query.js';

/** Anyone may call the token endpoint: its bodies are small forms, and nothing more is read. */
const TOKEN_BODY_LIMIT = 4096;

/** `POST /oauth2/token`: client credentials → bearer access token (docs/contract/reviews-and-engagement.md §7.3). */
export function oauthRoutes(credentials: CredentialService, failures: FailureThrottle) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/oauth2/token',
      {
        bodyLimit: TOKEN_BODY_LIMIT,
        schema: {
          tags: ['oauth'],
          summary: 'Obtain an access token with client credentials',
          description:
            'Form body `grant_type=client_credentials&client_id=…&client_secret=…` (or the client in HTTP Basic). ' +
            'While a token is live the same token is returned with its remaining lifetime. Only form bodies are read ' +
            '(RFC 6749 §4.4.2); past repeated failures from one address for one client id, a wrong secret answers 429 (the right one always passes).',
          consumes: ['application/x-www-form-urlencoded'],
          body: {
            type: 'object',
            properties: {
              grant_type: { type: 'string' },
              client_id: { type: 'string' },
              client_secret: { type: 'string' },
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['access_token', 'token_type', 'expires_in'],
              properties: { access_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' } },
            },
          },
        },
      },
      async (request, reply) => {
        const type = request.headers['content-type'];
        if (request.body !== undefined && !type?.startsWith('application/x-www-form-urlencoded')) {
          throw apiError('UNSUPPORTED_MEDIA_TYPE', 'Send the token request as a form (application/x-www-form-urlencoded).');
        }
        const body = bodyObject(request.body);
        const grantType = single(body.grant_type);
        let clientId = single(body.client_id);
        let clientSecret = single(body.client_secret);
        const basic = clientId ? undefined : decodeBasic(request.headers.authorization, safeDecode);
        if (basic) {
          clientId = basic.username;
          clientSecret = basic.password;
        }
        if (!grantType) throw apiError('INVALID_REQUEST', 'grant_type is required', { field: 'grant_type' });
        if (grantType !== 'client_credentials') throw apiError('UNSUPPORTED_GRANT_TYPE');
        if (!clientId || !clientSecret) throw apiError('INVALID_CLIENT', 'client_id and client_secret are required');
        reply.header('cache-control', 'no-store');
        return throttledAuthentication(failures, failureKey(request.ip, `client:${clientId}`), () =>
          credentials.exchangeClientCredentials(clientId, clientSecret),
        );
      },
    );
  };
}

/** RFC 6749 §2.3.1 form-encodes Basic client credentials; a malformed escape is kept as sent. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
