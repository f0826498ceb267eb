import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { PortalAccess } from '../commands/partner.js';
import type { CredentialService } from './credential-service.js';
import type { PartnerService } from './partner-service.js';
import { credentialSchema, issuedCredentialSchema, linkListSchema, MAX_GRACE_SECONDS } from './schemas.js';

const paging = pagingQuerySchema({ defaultLimit: 50, maxLimit: 1000 });
const config = { portal: true };
const tags = ['portal'];
const security = [{ portalSession: [] }];
const error = { $ref: 'ErrorResponse#' } as const;
const credentialParams = {
  type: 'object',
  required: ['credential_id'],
  properties: { credential_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/**
 * The partner portal's view of the partner itself (docs/request-log.md "The portal's pages"): the
 * businesses it may act for, by name, so a partner developer finds the ids its calls need
 * without asking the operator; and its own credentials, which it may roll (a new secret shown
 * once, the old one working for an overlap it chooses) or revoke, as the operator's API does.
 * Changing one ends the partner's other portal sessions, as an operator's change does, but not
 * the session that made it.
 */
export function partnerPortalRoutes(partners: PartnerService, credentials: CredentialService, portal: Pick<PortalAccess, 'keepSession'>) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/portal/v1/businesses',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'The businesses you may act for (linked by the operator), with their names and aliases, in the order they were linked',
          querystring: paging,
          response: { 200: linkListSchema },
        },
      },
      async (request) => partners.listLinks(portalOf(request).partnerId, request.query.limit, request.query.offset),
    );
    app.get(
      '/portal/v1/credentials',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Your credentials (API keys, Basic credentials, OAuth clients), never their secrets',
          response: {
            200: { type: 'object', required: ['credentials'], properties: { credentials: { type: 'array', items: credentialSchema } } },
          },
        },
      },
      async (request) => ({ credentials: await credentials.list(portalOf(request).partnerId) }),
    );
    app.post(
      '/portal/v1/credentials/:credential_id/rotate',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Roll a credential: a new secret, shown only in this answer; the old one keeps working for grace_seconds',
          params: credentialParams,
          body: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: { grace_seconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS } },
          },
          response: { 200: issuedCredentialSchema, 400: error, 404: error, 409: error },
        },
      },
      async (request) => {
        const session = portalOf(request);
        const rolled = await credentials.rotate(request.params.credential_id, request.body?.grace_seconds ?? 0, session.partnerId);
        await portal.keepSession(session);
        return rolled;
      },
    );
    app.post(
      '/portal/v1/credentials/:credential_id/revoke',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Revoke a credential at once (and the access tokens issued with it)',
          params: credentialParams,
          response: { 200: credentialSchema, 404: error },
        },
      },
      async (request) => {
        const session = portalOf(request);
        const revoked = await credentials.revoke(request.params.credential_id, session.partnerId);
        await portal.keepSession(session);
        return revoked;
      },
    );
  };
}
