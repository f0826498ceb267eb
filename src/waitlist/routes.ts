import type { FastifyInstance } from 'fastify';
import type { PartnerService } from '../partners/partner-service.js';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { sendJson } from '../platform/http/send-json.js';
import { bodyObject } from '../platform/query.js';
import { businessParams, estimateSchema, joinBody, onMyWayBody, visitParams, visitSchema } from './schemas.js';
import type { WaitlistPartnerSide } from './waitlist-partner.js';

const partner = (business: PartnerRouteConfig['business']): { partner: PartnerRouteConfig } => ({
  partner: { interface: 'waitlist', scheme: 'bearer', business },
});
const partnerConfig = partner({ unscoped: 'lists the businesses linked to the caller' });
const ownVisit = partner({ unscoped: "acts on the caller's own visit; another partner's answers like an unknown id" });
const tags = ['waitlist'];
const security = [{ bearerAuth: [] }];

/**
 * The waitlist partner API (spec part 3; docs/contract/waitlist.md §4): the partner restaurants, a
 * restaurant's waitlist status and info, joining the line, on-my-way visits, visits and their
 * cancel. `GET /v3/partner/restaurants` answers `{restaurants, total}` (docs/contract/waitlist.md
 * §4.3 leaves the shape open).
 */
export function waitlistRoutes(partners: PartnerService, service: WaitlistPartnerSide) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/businesses/:business_id/waitlist/status',
      {
        config: partner({ param: 'business_id' }),
        schema: {
          tags,
          security,
          summary: "A restaurant's waitlist state and wait estimates per party size, from its live line and seating pace",
          params: businessParams,
          response: {
            200: {
              type: 'object',
              required: ['business_id', 'state', 'wait_estimates'],
              properties: {
                business_id: { type: 'string' },
                state: { type: 'string', enum: ['OPEN', 'ON_MY_WAY', 'CLOSED'] },
                closed_reason: {
                  type: 'string',
                  enum: ['resto_closed', 'waitlist_closed', 'no_current_wait', 'special_event', 'remote_entry_disabled'],
                },
                wait_estimates: {
                  type: 'object',
                  properties: { '1-2': estimateSchema, '3-4': estimateSchema, '5-6': estimateSchema, '7+': estimateSchema },
                },
              },
            },
          },
        },
      },
      // Serialized already (kept per snapshot); not async: a kept snapshot answers with no promise.
      (request, reply) => sendJson(reply, service.status(request.business!.id)),
    );
    app.get(
      '/v3/businesses/:business_id/waitlist/info',
      {
        config: partner({ param: 'business_id' }),
        schema: {
          tags,
          security,
          summary: "A restaurant's join radius, maximum party size and seating areas",
          params: businessParams,
          response: {
            200: {
              type: 'object',
              properties: {
                join_radius: { type: 'number' },
                join_radius_unit: { type: 'string', enum: ['MILES', 'KILOMETERS'] },
                max_party_size: { type: 'integer' },
                seating_areas: { type: 'object', additionalProperties: { type: 'string' } },
              },
            },
          },
        },
      },
      async (request) => service.info(request.business!.id),
    );
    app.post(
      '/v3/businesses/:business_id/waitlist/visits',
      {
        config: { ...partner({ param: 'business_id' }), docs: { body: joinBody } },
        schema: {
          tags,
          security,
          summary: 'Join the waitlist (the restaurant must have a wait)',
          params: businessParams,
          response: {
            201: {
              type: 'object',
              required: ['visit_id', 'party_size'],
              properties: {
                visit_id: { type: 'string' },
                queue_time: { type: 'integer' },
                party_size: { type: 'integer' },
                arrive_by_time: { type: 'integer' },
                expected_seating_time_min: { type: 'integer' },
                expected_seating_time_max: { type: 'integer' },
                seating_area_preference: { type: 'string' },
              },
            },
            422: { $ref: 'ErrorResponse#' },
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await service.join(principalOf(request), request.business!.id, bodyObject(request.body), partnerWriteOf(request))),
    );
    app.post(
      '/v3/businesses/:business_id/waitlist/on-my-way',
      {
        config: { ...partner({ param: 'business_id' }), docs: { body: onMyWayBody } },
        schema: {
          tags,
          security,
          summary: 'Announce a party on its way (the restaurant must be open with no wait; at most 9 at once)',
          params: businessParams,
          response: {
            201: {
              type: 'object',
              required: ['visit_id', 'party_size'],
              properties: { visit_id: { type: 'string' }, party_size: { type: 'integer' }, arrive_by_time: { type: 'integer' } },
            },
            409: { $ref: 'ErrorResponse#' },
            422: { $ref: 'ErrorResponse#' },
          },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await service.onMyWay(principalOf(request), request.business!.id, bodyObject(request.body), partnerWriteOf(request))),
    );
    app.get(
      '/v3/visits/:visit_id',
      {
        config: ownVisit,
        schema: {
          tags,
          security,
          summary: 'A visit: its state, a time per state reached, parties ahead and the current estimate',
          params: visitParams,
          response: { 200: visitSchema, 404: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => service.visit(principalOf(request), request.params.visit_id),
    );
    app.post(
      '/v3/visits/:visit_id/cancel',
      {
        config: ownVisit,
        schema: {
          tags,
          security,
          summary: 'Cancel a visit (204); a visit already seated, canceled, no-show or expired → 409',
          params: visitParams,
          response: { 204: { description: 'Canceled', type: 'null' }, 404: { $ref: 'ErrorResponse#' }, 409: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request, reply) => {
        await service.cancel(principalOf(request), request.params.visit_id, partnerWriteOf(request));
        return reply.code(204).send();
      },
    );

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
        const q = request.query;
        const { total, businesses } = await partners.linkedBusinesses(principalOf(request).partnerId, q.limit, q.offset);
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
  };
}
