import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { LeadPortal } from './lead-portal.js';
import { MAX_MESSAGE_LENGTH } from './lead-service.js';
import { error, leadEmittedSchema, leadParams, leadSchema, operatorLeadSchema } from './schemas.js';

const config = { portal: true };
const tags = ['portal'];
const security = [{ portalSession: [] }];
const text = { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_LENGTH } as const;

/** Leads in the partner portal: the partner's businesses' leads; in the sandbox, leads started by hand. */
export function leadPortalRoutes(portal: LeadPortal) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/portal/v1/leads',
      {
        config,
        schema: {
          tags,
          security,
          summary: "The newest leads (up to 100) of one of your businesses, as the Leads API's Get Lead shows them",
          querystring: { type: 'object', required: ['business_id'], properties: { business_id: { type: 'string', maxLength: 200 } } },
          response: {
            200: { type: 'object', required: ['leads'], properties: { leads: { type: 'array', items: leadSchema } } },
            400: error,
            403: error,
            404: error,
          },
        },
      },
      async (request) => portal.list(portalOf(request).partnerId, request.query.business_id),
    );
    app.get(
      '/portal/v1/leads/:lead_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'A lead of one of your businesses, its newest 500 events, and whether it was read and replied to',
          params: leadParams,
          response: { 200: operatorLeadSchema, 404: error },
        },
      },
      async (request) => portal.get(portalOf(request).partnerId, request.params.lead_id),
    );
    app.post(
      '/portal/v1/leads',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Start a lead for one of your businesses (sandbox): a request for a quote, and its NEW_EVENT webhook',
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['business_id'],
            properties: {
              business_id: { type: 'string', maxLength: 200 },
              text: { ...text, description: "The request's additional details" },
            },
          },
          response: { 201: leadEmittedSchema, 400: error, 403: error, 404: error },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await portal.start(portalOf(request).partnerId, request.body.business_id, request.body.text)),
    );
    app.post(
      '/portal/v1/leads/:lead_id/messages',
      {
        config,
        schema: {
          tags,
          security,
          summary: "The consumer's next message in a lead (sandbox), and its NEW_EVENT webhook",
          params: leadParams,
          body: { type: ['object', 'null'], additionalProperties: false, properties: { text } },
          response: { 201: leadEmittedSchema, 400: error, 403: error, 404: error },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await portal.consumerSays(portalOf(request).partnerId, request.params.lead_id, request.body?.text)),
    );
  };
}
