import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { LEAD_EVENT_TYPES, MAX_MESSAGE_LENGTH, type LeadService } from './lead-service.js';
import { businessParams, error, leadEmittedSchema, leadParams, leadSchema, operatorLeadSchema } from './schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];

/** The operator's side of leads: start one or add a consumer's message (each with its webhook), and read them. */
export function leadAdminRoutes(service: LeadService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/admin/v1/businesses/:business_id/events/leads',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Emit a lead event: a new lead, a consumer message in one, or a consumer phone opt-in/out',
          description:
            'NEW_EVENT without a lead_id (or with a new one) starts a lead: a realistic request for a quote and the ' +
            "consumer's first message summarising it (`text`: its additional details). NEW_EVENT naming an existing lead adds a consumer message (`text`, " +
            'or a realistic one). A phone opt-in or opt-out changes the phone number of an existing lead. Each sends its webhook.',
          params: businessParams,
          response: { 201: leadEmittedSchema, 400: error, 404: error, 409: error },
          body: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: {
              lead_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
              event_type: { type: 'string', enum: [...LEAD_EVENT_TYPES] },
              text: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_LENGTH },
              phone_number: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, for an opt-in' },
            },
          },
        },
      },
      async (request, reply) => reply.code(201).send(await service.emit(request.params.business_id, request.body ?? {})),
    );
    app.get(
      '/admin/v1/businesses/:business_id/leads',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: "A business's newest leads (up to 100)",
          params: businessParams,
          response: {
            200: { type: 'object', required: ['leads'], properties: { leads: { type: 'array', items: leadSchema } } },
            404: error,
          },
        },
      },
      async (request) => service.list(request.params.business_id),
    );
    app.get(
      '/admin/v1/leads/:lead_id',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'A lead as its partner reads it, with its newest 500 events and whether the business read and replied',
          params: leadParams,
          response: { 200: operatorLeadSchema, 404: error },
        },
      },
      async (request) => service.get(request.params.lead_id),
    );
    app.post(
      '/admin/v1/leads/:lead_id/messages',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: "A consumer's message in a lead's conversation (sends NEW_EVENT)",
          params: leadParams,
          response: { 201: leadEmittedSchema, 400: error, 404: error },
          body: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: { text: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_LENGTH } },
          },
        },
      },
      async (request, reply) => reply.code(201).send(await service.consumerSays(request.params.lead_id, request.body?.text)),
    );
  };
}
