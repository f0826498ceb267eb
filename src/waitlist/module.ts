import type { PartnerService } from '../partners/partner-service.js';
import type { ApiModule } from '../platform/module.js';
import { pagingQuerySchema } from '../platform/paging.js';

const partnerConfig = { partner: { interface: 'waitlist', scheme: 'bearer', business: { unscoped: 'lists the businesses linked to the caller' } } } as const;

/**
 * Waitlist family. So far: `GET /v3/partner/restaurants`, the businesses onboarded for the
 * calling partner (facts.md §4.3 leaves the shape open; pbs answers `{restaurants, total}`).
 */
export function waitlistModule(partners: PartnerService): ApiModule {
  return {
    name: 'waitlist',
    routes: async (app) => {
      app.get(
        '/v3/partner/restaurants',
        {
          config: partnerConfig,
          schema: {
            tags: ['waitlist'],
            summary: 'Restaurants onboarded for the calling partner',
            security: [{ bearerAuth: [] }],
            querystring: pagingQuerySchema({ defaultLimit: 50, maxLimit: 200 }),
            response: {
              200: {
                type: 'object',
                required: ['restaurants', 'total'],
                properties: {
                  total: { type: 'integer' },
                  restaurants: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        business_id: { type: 'string' },
                        alias: { type: 'string' },
                        name: { type: 'string' },
                        phone: { type: 'string' },
                        display_phone: { type: 'string' },
                        timezone: { type: 'string' },
                        coordinates: { type: 'object', additionalProperties: true },
                        location: { type: 'object', additionalProperties: true },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        async (request) => {
          const q = request.query as { limit: number; offset: number };
          const { total, businesses } = await partners.linkedBusinesses(request.principal!.partnerId, q.limit, q.offset);
          return {
            total,
            restaurants: businesses.map((b) => ({
              business_id: b.id,
              alias: b.alias,
              name: b.name,
              phone: b.phone,
              display_phone: b.display_phone,
              timezone: b.timezone,
              coordinates: b.coordinates,
              location: b.location,
            })),
          };
        },
      );
    },
  };
}
