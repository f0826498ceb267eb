import type { PartnerService } from '../partners/partner-service.js';
import { partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import type { ApiModule } from '../platform/module.js';
import { bodyObject } from '../platform/query.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { MAX_PARTY_SIZE, waitlistConfigSchema } from './waitlist-rules.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { WaitlistLines, type WaitlistOptions } from './waitlist-lines.js';
import { WaitlistPace } from './waitlist-pace.js';
import { WaitlistPartnerSide } from './waitlist-partner.js';
import { WaitlistRestaurantSide } from './waitlist-restaurant.js';
import { waitlistMigration } from './waitlist-tables.js';
import { waitlistCommand } from '../commands/waitlist.js';
import {
  businessParams,
  configAnswer,
  estimateSchema,
  joinBody,
  onMyWayBody,
  operatorVisitSchema,
  visitParams,
  visitSchema,
} from './schemas.js';

const partner = (business: PartnerRouteConfig['business']): { partner: PartnerRouteConfig } => ({
  partner: { interface: 'waitlist', scheme: 'bearer', business },
});
const partnerConfig = partner({ unscoped: 'lists the businesses linked to the caller' });
const ownVisit = partner({ unscoped: "acts on the caller's own visit; another partner's answers like an unknown id" });
const tags = ['waitlist'];
const security = [{ bearerAuth: [] }];
const admin = { admin: true };
const adminTags = ['operator'];
const adminSecurity = [{ adminToken: [] }];

/** The waitlist family's services, one per side (docs/waitlist.md). */
export interface WaitlistServices {
  lines: WaitlistLines;
  partner: WaitlistPartnerSide;
  restaurant: WaitlistRestaurantSide;
  pace: WaitlistPace;
}

export function waitlistServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  changes: ChangeFeed,
  options: WaitlistOptions,
): WaitlistServices {
  const lines = new WaitlistLines(database, clock, businesses, changes, options);
  return { lines, partner: new WaitlistPartnerSide(lines), restaurant: new WaitlistRestaurantSide(lines), pace: new WaitlistPace(lines) };
}

/**
 * Waitlist (spec part 3; docs/contract/waitlist.md §4): the partner restaurants, a restaurant's waitlist status
 * and info, joining the line, on-my-way visits, visits and their cancel; and the restaurant side
 * for the operator. `GET /v3/partner/restaurants` answers `{restaurants, total}` (docs/contract/waitlist.md §4.3
 * leaves the shape open).
 */
const error = { $ref: 'ErrorResponse#' } as const;
const adminVisit = operatorVisitSchema();

export function waitlistModule(partners: PartnerService, { partner: service, restaurant, pace }: WaitlistServices): ApiModule {
  return {
    name: 'waitlist',
    tags: [
      { name: 'waitlist', description: "Waitlist partner API (Bearer API key): a restaurant's line, estimates, joins, on-my-way visits" },
    ],
    commands: { waitlist: (args, flags) => waitlistCommand(restaurant, args, flags) },
    migrations: [waitlistMigration],
    registerTasks: (tasks) => {
      tasks.schedule({ name: 'waitlist.advance', everyMs: 60_000, run: () => pace.runSchedule() });
    },
    routes: async (fastify) => {
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
        async (request) => service.status(request.business!.id),
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

      // The restaurant side, for the operator.
      app.get(
        '/admin/v1/businesses/:business_id/waitlist',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: "A restaurant's waitlist configuration and open/closed switch",
            params: businessParams,
            response: { 200: configAnswer, 404: error },
          },
        },
        async (request) => restaurant.config(request.params.business_id),
      );
      app.put(
        '/admin/v1/businesses/:business_id/waitlist',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary:
              'Configure a waitlist (fields given replace the current ones): hours, join radius, party size, seating areas, remote entry, on-my-way, seating pace',
            params: businessParams,
            body: waitlistConfigSchema,
            response: { 200: configAnswer, 400: error, 404: error },
          },
        },
        async (request) => restaurant.setConfig(request.params.business_id, bodyObject(request.body)),
      );
      for (const action of ['open', 'close'] as const) {
        app.post(
          `/admin/v1/businesses/:business_id/waitlist/${action}`,
          {
            config: admin,
            schema: {
              tags: adminTags,
              security: adminSecurity,
              summary:
                action === 'open'
                  ? 'Open the waitlist (it follows its hours again)'
                  : 'Close the waitlist, with reason waitlist_closed (default) or special_event',
              params: businessParams,
              body: { type: ['object', 'null'], additionalProperties: false, properties: { reason: { type: 'string', maxLength: 40 } } },
              response: { 200: configAnswer, 400: error, 404: error },
            },
          },
          async (request) => restaurant.setOpen(request.params.business_id, action === 'open', request.body?.reason),
        );
      }
      app.post(
        '/admin/v1/businesses/:business_id/waitlist/walk-ins',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'Add a party at the door to the line (the first party of a line comes this way)',
            params: businessParams,
            body: {
              type: 'object',
              additionalProperties: false,
              required: ['party_size'],
              properties: {
                party_size: { type: 'integer', minimum: 1, maximum: MAX_PARTY_SIZE },
                name: { type: 'string', maxLength: 100 },
                phone: { type: 'string', maxLength: 20 },
              },
            },
            response: { 201: adminVisit, 400: error, 404: error, 409: error },
          },
        },
        async (request, reply) => reply.code(201).send(await restaurant.addWalkIn(request.params.business_id, bodyObject(request.body))),
      );
      app.get(
        '/admin/v1/businesses/:business_id/waitlist/queue',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: "A restaurant's active visits in line order",
            params: businessParams,
            response: {
              200: {
                type: 'object',
                required: ['business_id', 'visits'],
                properties: { business_id: { type: 'string' }, visits: { type: 'array', items: adminVisit } },
              },
              404: error,
            },
          },
        },
        async (request) => restaurant.queue(request.params.business_id),
      );
      for (const action of ['notify', 'seat', 'no-show', 'arrive'] as const) {
        app.post(
          `/admin/v1/visits/:visit_id/${action}`,
          {
            config: admin,
            schema: {
              tags: adminTags,
              security: adminSecurity,
              summary: {
                notify: 'Tell a waiting party its table is ready (NOTIFIED)',
                seat: 'Seat a waiting or notified party (SEATED)',
                'no-show': 'Mark a party that did not come (NO_SHOW)',
                arrive: 'Check in an on-my-way party: it takes the next place in line (WAITING)',
              }[action],
              params: visitParams,
              response: { 200: adminVisit, 404: error, 409: error },
            },
          },
          async (request) => restaurant.act(request.params.visit_id, action),
        );
      }

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
    },
  };
}
