import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { bodyObject } from '../platform/query.js';
import { businessParams, configAnswer, operatorVisitSchema, visitParams } from './schemas.js';
import type { WaitlistRestaurantSide } from './waitlist-restaurant.js';
import { MAX_PARTY_SIZE, waitlistConfigSchema } from './waitlist-rules.js';

const adminTags = ['operator'];
const adminSecurity = [{ adminToken: [] }];
const error = { $ref: 'ErrorResponse#' } as const;
const adminVisit = operatorVisitSchema();

/** The restaurant side of the waitlist, for the operator: its configuration, opening and closing, walk-ins, the line and its visits. */
export function waitlistAdminRoutes(restaurant: WaitlistRestaurantSide) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/businesses/:business_id/waitlist',
      {
        config: { operator: 'viewer' },
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
        config: { operator: 'partner_manager' },
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
          config: { operator: 'support' },
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
        config: { operator: 'support' },
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
        config: { operator: 'viewer' },
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
          config: { operator: 'support' },
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
  };
}
