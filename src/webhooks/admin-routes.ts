import { roleAtLeast } from '../platform/auth/operator.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import {
  deliveryDetailSchema,
  deliveryListSchema,
  emittedSchema,
  endpointBodySchema,
  endpointSchema,
  redeliveredSchema,
} from './schemas.js';
import type { WebhookService } from './webhook-service.js';
import { DELIVERY_STATUSES } from './webhook-tables.js';

const error = { $ref: 'ErrorResponse#' } as const;

/** What a role that may not see secrets is shown instead of one. */
export const HIDDEN_SECRET = 'hidden: the partner_manager role sees it';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const partnerParams = { type: 'object', required: ['partner_id'], properties: { partner_id: { type: 'string' } } } as const;
const deliveryParams = {
  type: 'object',
  required: ['delivery_id'],
  properties: { delivery_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const businessParams = { type: 'object', required: ['business_id'], properties: { business_id: { type: 'string' } } } as const;

/** The operator's side of webhooks: partners' endpoints and their verification, events by hand, deliveries and redelivery. */
export function webhookAdminRoutes(service: WebhookService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.put(
      '/admin/v1/partners/:partner_id/webhook',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: "Register or change a partner's webhook URL (a new URL must be verified again)",
          params: partnerParams,
          response: { 200: endpointSchema, 400: error, 404: error },
          body: { ...endpointBodySchema, required: ['url', 'client_id'] },
        },
      },
      async (request) => service.setEndpoint(request.params.partner_id, request.body),
    );
    app.get(
      '/admin/v1/partners/:partner_id/webhook',
      {
        config: { operator: 'viewer', revealsSecret: true },
        schema: {
          tags,
          security,
          summary:
            'A partner’s webhook endpoint, state and signing secret (the secret for a partner manager or admin; showing it is audited)',
          params: partnerParams,
          response: { 200: endpointSchema, 404: error },
        },
      },
      async (request) => {
        const endpoint = await service.getEndpoint(request.params.partner_id);
        // A viewer or support person sees no secret; a partner manager's look at it is recorded.
        if (!request.operator || !roleAtLeast(request.operator.role, 'partner_manager')) return { ...endpoint, secret: HIDDEN_SECRET };
        noteAudit({ revealed: 'webhook signing secret' });
        return endpoint;
      },
    );
    app.delete(
      '/admin/v1/partners/:partner_id/webhook',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Remove a partner’s webhook endpoint',
          params: partnerParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await service.removeEndpoint(request.params.partner_id);
        return reply.code(204).send();
      },
    );
    app.post(
      '/admin/v1/partners/:partner_id/webhook/verify',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Verify the endpoint now: GET url?verification=…, must echo it within the timeout',
          response: { 200: endpointSchema, 404: error },
          params: partnerParams,
        },
      },
      async (request) => service.verify(request.params.partner_id),
    );
    app.put(
      '/admin/v1/partners/:partner_id/webhook/duplicate-and-reorder',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Sandbox: send every message of the partner twice and out of order (to try its de-duplication and ordering)',
          response: { 200: endpointSchema, 404: error },
          params: partnerParams,
          body: { type: 'object', required: ['on'], properties: { on: { type: 'boolean' } } },
        },
      },
      async (request) => service.setDuplicateAndReorder(request.params.partner_id, request.body.on),
    );
    app.post(
      '/admin/v1/partners/:partner_id/webhook/rotate-secret',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'New signing secret; the old one also signs for 24 hours',
          params: partnerParams,
          response: { 200: endpointSchema, 404: error },
        },
      },
      async (request) => service.rotateSecret(request.params.partner_id),
    );

    app.get(
      '/admin/v1/webhook-deliveries',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Deliveries (newest first) with every attempt',
          response: { 200: deliveryListSchema },
          querystring: {
            type: 'object',
            properties: {
              partner_id: { type: 'string' },
              status: { type: 'string', enum: DELIVERY_STATUSES },
              message_id: { type: 'string', minLength: 1, maxLength: 80, description: 'One message’s deliveries (its `webhook-id`)' },
              event_type: { type: 'string', minLength: 1, maxLength: 80 },
              limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
            },
          },
        },
      },
      async (request) => {
        const q = request.query;
        return {
          deliveries: await service.deliveries({
            partnerId: q.partner_id,
            status: q.status,
            eventType: q.event_type,
            messageIds: q.message_id === undefined ? undefined : [q.message_id],
            limit: q.limit,
          }),
        };
      },
    );
    app.get(
      '/admin/v1/webhook-deliveries/:delivery_id',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'One delivery whole: its attempts, the message as it is sent, and the URL it goes to',
          params: deliveryParams,
          response: { 200: deliveryDetailSchema, 404: error },
        },
      },
      async (request) => service.delivery(request.params.delivery_id),
    );
    app.get(
      '/admin/v1/webhook-deliveries/per-minute',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Delivery attempts per minute (pbs clock) over the last minutes: answered 2xx, or not',
          querystring: { type: 'object', properties: { minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 60 } } },
          response: {
            200: {
              type: 'object',
              required: ['minutes'],
              properties: {
                minutes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['minute', 'succeeded', 'failed'],
                    properties: { minute: { type: 'string' }, succeeded: { type: 'integer' }, failed: { type: 'integer' } },
                  },
                },
              },
            },
          },
        },
      },
      async (request) => service.attemptsPerMinute(request.query.minutes),
    );
    app.post(
      '/admin/v1/webhook-deliveries/:delivery_id/redeliver',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Send a delivered or failed message again',
          params: deliveryParams,
          response: { 200: redeliveredSchema, 404: error, 409: error },
        },
      },
      async (request) => service.redeliver(request.params.delivery_id),
    );
    app.post(
      '/admin/v1/webhook-deliveries/redeliver-failed',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Send again every failed message created between two times',
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['from', 'to'],
            properties: {
              from: { type: 'string', format: 'date-time' },
              to: { type: 'string', format: 'date-time' },
              partner_id: { type: 'string' },
            },
          },
          response: { 200: redeliveredSchema },
        },
      },
      async (request) => {
        const b = request.body;
        return service.redeliverFailed(Date.parse(b.from), Date.parse(b.to), b.partner_id);
      },
    );

    // Events the operator emits for a business (reviews and leads come from their families).
    app.post(
      '/admin/v1/businesses/:business_id/events/license-verifications',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Emit a license verification update (verified, rejected or pending)',
          params: businessParams,
          response: { 201: emittedSchema, 400: error, 404: error },
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['license_verification_status', 'license_number'],
            properties: {
              license_verification_status: { type: 'string', enum: ['VERIFIED', 'REJECTED', 'PENDING'] },
              license_verification_failure_reason: {
                type: 'string',
                enum: ['NOT_FOUND', 'NAME_MATCH_FAILURE', 'SECONDARY_MATCH_FAILURE', 'INACTIVE', 'REJECT'],
              },
              license_number: { type: 'string' },
              license_expiry_date: { type: ['string', 'null'], format: 'date' },
              license_trade: { type: ['string', 'null'] },
              license_issuing_agency: { type: ['string', 'null'] },
            },
          },
        },
      },
      async (request, reply) => reply.code(201).send(await service.emitLicense(request.params.business_id, request.body)),
    );
    app.post(
      '/admin/v1/businesses/:business_id/events/ingestion-jobs',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Emit a listing data-ingestion job update',
          params: businessParams,
          response: { 201: emittedSchema, 400: error, 404: error },
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['job_id', 'status'],
            properties: {
              job_id: { type: 'string', minLength: 1 },
              status: { type: 'string', enum: ['PROCESSING', 'COMPLETED', 'APPLIED', 'REJECTED'] },
            },
          },
        },
      },
      async (request, reply) => reply.code(201).send(await service.emitIngestion(request.params.business_id, request.body)),
    );
  };
}
