import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { decodeBasic } from '../platform/http/authenticate.js';
import { failureKey, throttledAuthentication } from '../platform/http/auth-throttle.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import { apiError } from '../platform/errors.js';
import type { OauthClientService, OauthClientView } from './oauth-clients.js';
import { bodyObject, single } from '../platform/query.js';

/** Anyone may call the token endpoint: its bodies are small forms, and nothing more is read. */
const TOKEN_BODY_LIMIT = 4096;

/** The token endpoint's versions (docs/owners.md "Tokens"): they differ in what a refresh returns. */
export type TokenEndpointVersion = 'v2' | 'v3';

/** A form field of a token request. */
export type TokenForm = Record<string, string | undefined>;

/**
 * Grants the token endpoint hands on once the client authenticated: the business user's
 * authorization code and refresh token (the owners family answers them).
 */
export type DelegatedGrants = Partial<
  Record<
    'authorization_code' | 'refresh_token',
    (client: OauthClientView, form: TokenForm, version: TokenEndpointVersion) => Promise<object>
  >
>;

const tokenAnswer = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    expires_on: { type: 'string', description: 'When the access token expires (ISO 8601); business user tokens only' },
    refresh_token: { type: 'string', description: 'Business user tokens only' },
    refresh_token_expires_in: { type: 'integer' },
    refresh_token_expires_on: { type: 'string' },
  },
} as const;

const FORM_FIELDS = ['grant_type', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier', 'refresh_token'] as const;

/**
 * `POST /oauth2/token` and `/oauth2/token/v3`: client credentials → a partner's bearer token
 * (docs/contract/reviews-and-engagement.md §7.3); a business user's authorization code or refresh
 * token → their access token (docs/owners.md).
 */
export function oauthRoutes(
  clients: OauthClientService,
  failures: FailureThrottle,
  grants: DelegatedGrants = {},
  revoke?: (client: OauthClientView, token: string | undefined) => Promise<void>,
) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    if (revoke)
      app.post(
        '/oauth2/revoke',
        {
          bodyLimit: TOKEN_BODY_LIMIT,
          schema: {
            tags: ['oauth'],
            summary: 'Revoke a business user’s token (RFC 7009)',
            description:
              'Form body `token` (and optionally `token_type_hint`) with the client as `client_id`/`client_secret` or HTTP Basic. ' +
              'An access token ends alone; a refresh token ends its whole authorization. An unknown token, or another ' +
              'client’s, changes nothing and is no error.',
            consumes: ['application/x-www-form-urlencoded'],
            body: {
              type: 'object',
              properties: {
                token: { type: 'string' },
                token_type_hint: { type: 'string' },
                client_id: { type: 'string' },
                client_secret: { type: 'string' },
              },
            },
            response: { 200: { type: 'object', properties: {}, additionalProperties: false } },
          },
        },
        async (request, reply) => {
          const form = formOf(request.headers['content-type'], request.body);
          const { id, secret } = clientOf(form, request.headers.authorization);
          reply.header('cache-control', 'no-store');
          const client = await throttledAuthentication(failures, failureKey(request.ip, `client:${id}`), () =>
            clients.authenticate(id, secret),
          );
          await revoke(client, form.token);
          return {};
        },
      );
    for (const [url, version] of [
      ['/oauth2/token', 'v2'],
      ['/oauth2/token/v3', 'v3'],
    ] as const) {
      app.post(
        url,
        {
          bodyLimit: TOKEN_BODY_LIMIT,
          schema: {
            tags: ['oauth'],
            summary:
              version === 'v2'
                ? 'Obtain an access token (client credentials, authorization code or refresh token)'
                : 'Obtain a business user’s access token, v3 (a new refresh token on every refresh)',
            description:
              'Form body with `grant_type` and the client as `client_id`/`client_secret` (or in HTTP Basic). ' +
              '`client_credentials`: the partner’s own token; while one is live the same token is returned with its remaining lifetime. ' +
              '`authorization_code` (`code`, `redirect_uri` when the authorization named one, `code_verifier` with PKCE) and ' +
              '`refresh_token` (`refresh_token`): a business user’s token, 7 days, with a refresh token of 365 days; ' +
              (version === 'v2'
                ? 'here a refresh returns the same live refresh token. '
                : 'here every refresh returns a new refresh token and ends the old one, and an old one presented again ends the live one. ') +
              'Only form bodies are read (RFC 6749 §4.1.3); past repeated failures from one address for one client id, a wrong secret answers 429.',
            consumes: ['application/x-www-form-urlencoded'],
            body: { type: 'object', properties: Object.fromEntries(FORM_FIELDS.map((f) => [f, { type: 'string' }])) },
            response: { 200: tokenAnswer },
          },
        },
        async (request, reply) => {
          const form = formOf(request.headers['content-type'], request.body);
          const grantType = form.grant_type;
          if (!grantType) throw apiError('INVALID_REQUEST', 'grant_type is required', { field: 'grant_type' });
          const delegated = grantType === 'authorization_code' || grantType === 'refresh_token' ? grants[grantType] : undefined;
          if (grantType !== 'client_credentials' && !delegated) throw apiError('UNSUPPORTED_GRANT_TYPE');
          const { id, secret } = clientOf(form, request.headers.authorization);
          reply.header('cache-control', 'no-store');
          const key = failureKey(request.ip, `client:${id}`);
          if (!delegated) return throttledAuthentication(failures, key, () => clients.exchangeClientCredentials(id, secret));
          const client = await throttledAuthentication(failures, key, () => clients.authenticate(id, secret));
          return delegated(client, form, version);
        },
      );
    }
  };
}

/** The fields of a token or revocation request: only form bodies are read (RFC 6749 §4.1.3, RFC 7009 §2.1). */
function formOf(contentType: string | undefined, body: unknown): TokenForm {
  if (body !== undefined && !contentType?.startsWith('application/x-www-form-urlencoded')) {
    throw apiError('UNSUPPORTED_MEDIA_TYPE', 'Send the token request as a form (application/x-www-form-urlencoded).');
  }
  const fields = bodyObject(body);
  return Object.fromEntries([...FORM_FIELDS, 'token', 'token_type_hint'].map((f) => [f, single(fields[f])]));
}

/** The client of a request: form fields, else HTTP Basic (RFC 6749 §2.3.1); 401 INVALID_CLIENT without both parts. */
function clientOf(form: TokenForm, authorization: string | undefined): { id: string; secret: string } {
  const basic = form.client_id ? undefined : decodeBasic(authorization, safeDecode);
  const id = basic?.username ?? form.client_id;
  const secret = basic?.password ?? form.client_secret;
  if (!id || !secret) throw apiError('INVALID_CLIENT', 'client_id and client_secret are required');
  return { id, secret };
}

/** RFC 6749 §2.3.1 form-encodes Basic client credentials; a malformed escape is kept as sent. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
