import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { isRecord } from '../platform/values.js';
import { DELIVERY_STATUSES, webhookEventTypes } from './webhook-tables.js';
import type { WebhookService } from './webhook-service.js';
import { deliveryDetailSchema, deliveryListSchema, endpointBodySchema, endpointSchema, redeliveredSchema } from './schemas.js';

const config = { portal: true };
const tags = ['portal'];
const security = [{ portalSession: [] }];
const error = { $ref: 'ErrorResponse#' } as const;

/**
 * Webhooks self-served in the partner portal (issue 26): the partner's own endpoint with its
 * state, verification and secret rotation, and its own deliveries with their attempts and
 * replay. What the operator's routes do for any partner, these do for the session's partner only.
 */
export function webhookPortalRoutes(service: WebhookService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    // The routes that answer the session's endpoint as it now is.
    const endpointAnswer = (summary: string) =>
      ({ config, schema: { tags, security, summary, response: { 200: endpointSchema, 404: error } } }) as const;
    app.get(
      '/portal/v1/webhooks/endpoint',
      endpointAnswer('Your webhook endpoint: URL, verification state and last result, signing secret'),
      async (request) => service.getEndpoint(portalOf(request).partnerId),
    );
    app.put(
      '/portal/v1/webhooks/endpoint',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Register or change your webhook URL and the events it receives (a new URL is verified again before use)',
          body: endpointBodySchema,
          response: { 200: endpointSchema, 400: error },
        },
      },
      async (request) => service.setEndpoint(portalOf(request).partnerId, request.body),
    );
    app.delete(
      '/portal/v1/webhooks/endpoint',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Remove your webhook endpoint: nothing more is delivered to you',
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await service.removeEndpoint(portalOf(request).partnerId);
        return reply.code(204).send();
      },
    );
    app.post(
      '/portal/v1/webhooks/endpoint/verify',
      endpointAnswer('Verify your endpoint again now (GET url?verification=…, echoed within the timeout)'),
      async (request) => service.verify(portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/webhooks/endpoint/rotate-secret',
      endpointAnswer('A new signing secret; messages carry the old and the new signature for 24 hours'),
      async (request) => service.rotateSecret(portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/webhooks/test-events',
      {
        config: {
          ...config,
          docs: {
            body: {
              type: 'object',
              required: ['event_type'],
              properties: {
                event_type: { type: 'string', enum: webhookEventTypes },
                business_id: { type: 'string', description: 'The business the update is about; default a placeholder id' },
              },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Send yourself a test event of a type your endpoint receives: a realistic update marked "test": true',
          response: {
            202: {
              type: 'object',
              required: ['event_id', 'message_id'],
              properties: { event_id: { type: 'string' }, message_id: { type: 'string' } },
            },
            400: error,
            404: error,
          },
        },
      },
      async (request, reply) => {
        const body = isRecord(request.body) ? request.body : {};
        return reply.code(202).send(await service.sendTestEvent(portalOf(request).partnerId, body.event_type, body.business_id));
      },
    );
    app.put(
      '/portal/v1/webhooks/endpoint/duplicate-and-reorder',
      {
        config,
        schema: {
          tags,
          security,
          summary:
            'Sandbox: every message of yours sent twice and out of order, to try your de-duplication (by message id) and ordering (by time)',
          body: { type: 'object', required: ['on'], properties: { on: { type: 'boolean' } } },
          response: { 200: endpointSchema, 404: error },
        },
      },
      async (request) => service.setDuplicateAndReorder(portalOf(request).partnerId, request.body.on),
    );
    app.get(
      '/portal/v1/webhooks/deliveries',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Your deliveries (newest first) with every attempt: time, status, duration, answer excerpt, error, next retry',
          querystring: {
            type: 'object',
            properties: {
              status: { type: 'string', enum: DELIVERY_STATUSES },
              message_id: { type: 'string', minLength: 1, maxLength: 80, description: 'One message’s deliveries (its `webhook-id`)' },
              event_type: { type: 'string', minLength: 1, maxLength: 80 },
              limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
            },
          },
          response: { 200: deliveryListSchema },
        },
      },
      async (request) => ({
        deliveries: await service.deliveries({
          partnerId: portalOf(request).partnerId,
          status: request.query.status,
          eventType: request.query.event_type,
          messageIds: request.query.message_id === undefined ? undefined : [request.query.message_id],
          limit: request.query.limit,
        }),
      }),
    );
    app.get(
      '/portal/v1/webhooks/deliveries/:delivery_id',
      {
        config,
        schema: {
          tags,
          security,
          summary:
            'One of your deliveries whole: its attempts, the message as it is sent, and the URL it goes to (another partner’s answers 404)',
          params: {
            type: 'object',
            required: ['delivery_id'],
            properties: { delivery_id: { type: 'string', minLength: 1, maxLength: 64 } },
          },
          response: { 200: deliveryDetailSchema, 404: error },
        },
      },
      async (request) => service.delivery(request.params.delivery_id, portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/webhooks/deliveries/:delivery_id/redeliver',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Send one of your messages again (another partner’s answers 404)',
          params: {
            type: 'object',
            required: ['delivery_id'],
            properties: { delivery_id: { type: 'string', minLength: 1, maxLength: 64 } },
          },
          response: { 200: redeliveredSchema, 404: error, 409: error },
        },
      },
      async (request) => service.redeliver(request.params.delivery_id, portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/webhooks/deliveries/redeliver-failed',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Send again every failed message of yours created in a period',
          body: {
            type: 'object',
            required: ['from', 'to'],
            properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
          },
          response: { 200: redeliveredSchema },
        },
      },
      async (request) => service.redeliverFailed(Date.parse(request.body.from), Date.parse(request.body.to), portalOf(request).partnerId),
    );
  };
}
