import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { PartnerService } from './partner-service.js';
import { linkListSchema } from './schemas.js';

const paging = pagingQuerySchema({ defaultLimit: 50, maxLimit: 1000 });

/**
 * The partner portal's view of the partner itself (docs/request-log.md "The portal's pages"): the
 * businesses it may act for, by name, so a partner developer finds the ids its calls need
 * without asking the operator.
 */
export function partnerPortalRoutes(partners: PartnerService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/portal/v1/businesses',
      {
        config: { portal: true },
        schema: {
          tags: ['portal'],
          security: [{ portalSession: [] }],
          summary: 'The businesses you may act for (linked by the operator), with their names and aliases, in the order they were linked',
          querystring: paging,
          response: { 200: linkListSchema },
        },
      },
      async (request) => partners.listLinks(portalOf(request).partnerId, request.query.limit, request.query.offset),
    );
  };
}
