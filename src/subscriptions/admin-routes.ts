import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { SubscriptionService } from './subscription-service.js';

/** The operator's view of a partner's subscription requests. */
export function subscriptionAdminRoutes(service: SubscriptionService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/partners/:partner_id/subscription-requests',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: ['operator'],
          security: [{ adminToken: [] }],
          summary: "A partner's subscription requests and what became of them (unknown ids skipped, unlinked ids refused)",
          params: { type: 'object', required: ['partner_id'], properties: { partner_id: { type: 'string' } } },
          response: {
            200: {
              type: 'object',
              required: ['requests'],
              properties: {
                requests: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'action', 'subscription_types', 'business_ids', 'status', 'created_at', 'completed_at'],
                    properties: {
                      id: { type: 'string' },
                      action: { type: 'string' },
                      subscription_types: { type: 'array', items: { type: 'string' } },
                      business_ids: { type: 'array', items: { type: 'string' } },
                      status: { type: 'string' },
                      skipped_business_ids: { type: 'array', items: { type: 'string' }, description: 'Unknown ids: skipped' },
                      refused_business_ids: {
                        type: 'array',
                        items: { type: 'string' },
                        description: 'Not linked to the partner: refused',
                      },
                      created_at: { type: 'string' },
                      completed_at: { type: ['string', 'null'] },
                    },
                  },
                },
              },
            },
          },
        },
      },
      async (request) => ({ requests: await service.requests(request.params.partner_id) }),
    );
  };
}
