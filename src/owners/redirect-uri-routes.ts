import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { MAX_AUTHORIZE_VALUE } from './authorization-rules.js';
import { MAX_REDIRECT_URIS, type BusinessUserAuthorization } from './authorization-service.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const error = { $ref: 'ErrorResponse#' } as const;
const params = { type: 'object', required: ['partner_id'], properties: { partner_id: { type: 'string', maxLength: 64 } } } as const;
const redirectUris = {
  type: 'object',
  required: ['redirect_uris'],
  properties: { redirect_uris: { type: 'array', maxItems: MAX_REDIRECT_URIS, items: { type: 'string', maxLength: MAX_AUTHORIZE_VALUE } } },
} as const;

/**
 * The operator registers where a partner's app receives business users' authorization codes
 * (docs/owners.md "Redirect URIs"). `requirePartner` answers 404 for an unknown partner.
 */
export function redirectUriAdminRoutes(authorization: BusinessUserAuthorization, requirePartner: (partnerId: string) => Promise<void>) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const url = '/admin/v1/partners/:partner_id/redirect-uris';
    app.get(
      url,
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'A partner’s registered OAuth redirect URIs',
          params,
          response: { 200: redirectUris, 404: error },
        },
      },
      async (request) => {
        await requirePartner(request.params.partner_id);
        return { redirect_uris: await authorization.redirectUris(request.params.partner_id) };
      },
    );
    app.put(
      url,
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Replace a partner’s registered OAuth redirect URIs',
          description:
            'Absolute http(s) URLs without a fragment, matched exactly. An authorization request names one of them (or none when ' +
            'there is one). A sandbox partner with none registered may use loopback addresses.',
          params,
          body: { ...redirectUris, additionalProperties: false },
          response: { 200: redirectUris, 400: error, 404: error },
        },
      },
      async (request) => {
        await requirePartner(request.params.partner_id);
        return { redirect_uris: await authorization.setRedirectUris(request.params.partner_id, request.body.redirect_uris) };
      },
    );
  };
}
