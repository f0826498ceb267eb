import type { FastifyInstance } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { sendJson } from '../platform/http/send-json.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { MAX_RANGE_WEEKS, type EngagementService } from './engagement-service.js';

/** At most 20 businesses per request (spec "Limits"). */
export const MAX_ENGAGEMENT_BUSINESSES = 20;

const partner: PartnerRouteConfig = {
  interface: 'engagement',
  scheme: 'bearer',
  business: { queryList: 'business_ids', max: MAX_ENGAGEMENT_BUSINESSES },
};
const date = { type: 'string', format: 'date' } as const;
const metricsQuery = {
  type: 'object',
  required: ['business_ids'],
  properties: {
    business_ids: {
      type: 'array',
      items: { type: 'string' },
      maxItems: MAX_ENGAGEMENT_BUSINESSES,
      description: 'Business ids or aliases, comma-separated or repeated, at most 20',
    },
    date_range_start: { ...date, description: 'First week wanted (any day of it); default: the most recent scored week' },
    date_range_end: {
      ...date,
      description: `Last week wanted (any day of it); default: the most recent scored week; at most ${MAX_RANGE_WEEKS} weeks in all`,
    },
  },
} as const;
/** The partner read of engagement metrics (docs/contract/reviews-and-engagement.md §7.2). */
export function engagementRoutes(service: EngagementService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/businesses/engagement',
      {
        config: { partner, docs: { querystring: metricsQuery } },
        schema: {
          tags: ['engagement metrics'],
          security: [{ bearerAuth: [] }],
          summary:
            'Weekly engagement, intent and transaction scores of up to 20 linked businesses, relative to all North American businesses',
          description:
            'Weeks start on Monday. A business without scores in the range answers an empty `metrics` list; an unknown id is 404 NOT_FOUND, one not linked to the caller 403 AUTHORIZATION_ERROR; 21 ids or more are 400 INVALID_REQUEST.',
          querystring: { type: 'object', additionalProperties: true, properties: {} },
          response: {
            200: {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['business_id', 'metrics'],
                    properties: {
                      business_id: { type: 'string' },
                      metrics: {
                        type: 'array',
                        items: {
                          type: 'object',
                          required: ['start_of_week_date', 'engagement_metric', 'intent_metric', 'transaction_metric'],
                          properties: {
                            start_of_week_date: { type: 'string', format: 'date' },
                            engagement_metric: { type: 'integer', minimum: 1, maximum: 20 },
                            intent_metric: { type: 'integer', minimum: 1, maximum: 10 },
                            transaction_metric: { type: 'integer', minimum: 1, maximum: 4 },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      // Serialized already (each business's part is kept so). Not async: the answer is usually
      // ready at once, and then costs no promise.
      (request, reply) => sendJson(reply, service.metrics(request.businessIds!, request.query)),
    );
  };
}
