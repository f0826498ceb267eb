import type { FastifyInstance } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { BusinessUserService } from './owner-service.js';

const partner: PartnerRouteConfig = {
  interface: 'leads',
  scheme: 'business_user',
  userScope: 'leads',
  business: { unscoped: 'lists the businesses the token’s business user manages' },
  defaultPerSecond: 5,
};

/**
 * `GET /token/v1/businesses`: the businesses a business user's token reaches (docs/owners.md
 * "Tokens"). The original serves it on its partner host; real clients call it to list a token's
 * businesses and as their credential health check.
 */
export function tokenRoutes(users: BusinessUserService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/token/v1/businesses',
      {
        config: { partner },
        schema: {
          tags: ['leads'],
          security: [{ businessUserOAuth: ['leads'] }],
          summary: 'The businesses this business user’s token reaches',
          response: {
            200: { type: 'object', required: ['business_ids'], properties: { business_ids: { type: 'array', items: { type: 'string' } } } },
          },
        },
      },
      async (request) => {
        const user = principalOf(request).businessUser;
        // The business_user scheme admits only a business user's token (authenticate.ts): never reached.
        if (!user) throw new Error('/token/v1/businesses admitted a credential that is not a business user’s');
        return { business_ids: await users.managedBusinesses(user.id) };
      },
    );
  };
}
