import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { LeadApi, LeadCaller } from './lead-api.js';
import { MAX_RESTRICTED_BUSINESSES, type LeadWebhooks } from './lead-webhooks.js';
import { EVENTS_LIMIT, LEAD_IDS_LIMIT } from './lead-reads.js';
import { businessParams, error, leadEventSchema, leadSchema } from './schemas.js';

/**
 * Every Leads operation takes a business user's token with the `leads` scope; the business it
 * acts for is the lead's, which the user must manage (checked by LeadApi per lead). The
 * original allows 5 requests a second by default.
 */
const partner: PartnerRouteConfig = {
  interface: 'leads',
  scheme: 'business_user',
  userScope: 'leads',
  business: { deferred: "the lead's business, which the token's business user must manage (LeadApi)" },
  defaultPerSecond: 5,
};
const tags = ['leads'];
const security = [{ businessUserOAuth: ['leads'] }];
/** Longer ids are not read; shorter ones that pbs could not have issued answer 400 INVALID_ID. */
const leadParams = { type: 'object', required: ['lead_id'], properties: { lead_id: { type: 'string', maxLength: 200 } } } as const;
const emptyAnswer = { type: 'object', properties: {}, additionalProperties: false } as const;
const errors = { 400: error, 403: error, 404: error } as const;

function callerOf(request: FastifyRequest): LeadCaller {
  const principal = principalOf(request);
  // The business_user scheme admits only a business user's token (authenticate.ts): never reached.
  if (!principal.businessUser) throw new Error(`${request.url} admitted a credential that is not a business user's`);
  return { partnerId: principal.partnerId, userId: principal.businessUser.id };
}

/** The Leads API (docs/contract/leads.md §12.2). */
export function leadRoutes(api: LeadApi, webhooks: LeadWebhooks) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/leads/:lead_id',
      {
        config: { partner },
        schema: {
          tags,
          security,
          summary: 'A lead: the request for a quote and the consumer',
          params: leadParams,
          response: { 200: leadSchema, ...errors },
        },
      },
      async (request) => api.lead(callerOf(request), request.params.lead_id),
    );
    app.get(
      '/v3/leads/:lead_id/events',
      {
        config: {
          partner,
          docs: {
            querystring: {
              type: 'object',
              properties: {
                limit: { type: 'integer', minimum: EVENTS_LIMIT.min, maximum: EVENTS_LIMIT.max, default: EVENTS_LIMIT.default },
                older_than_cursor: { type: 'string' },
                newer_than_cursor: { type: 'string' },
              },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'A lead’s conversation, oldest first',
          description:
            'Without a cursor the latest `limit` events; with `newer_than_cursor` the `limit` directly after that event, with ' +
            '`older_than_cursor` the `limit` directly before it. Events sharing an id (a text and its attachment) count once.',
          params: leadParams,
          querystring: { type: 'object', additionalProperties: true, properties: {} },
          response: {
            200: { type: 'object', required: ['events'], properties: { events: { type: 'array', items: leadEventSchema } } },
            ...errors,
          },
        },
      },
      async (request) => api.events(callerOf(request), request.params.lead_id, request.query),
    );
    app.post(
      '/v3/leads/:lead_id/events',
      {
        config: {
          partner,
          docs: {
            body: {
              type: 'object',
              required: ['request_content', 'request_type'],
              properties: {
                request_content: { type: 'string', pattern: '[\\S\\s]+[\\S]+' },
                request_type: { type: 'string', enum: ['TEXT'] },
              },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Reply to a lead (a text from the business)',
          description:
            'The reply joins the conversation as a BIZ event with `channel` API-SELF, and its NEW_EVENT webhook goes out like any ' +
            'other (to you too: read the event to tell your echo from the consumer). The same text again within an hour, with no ' +
            'consumer message between, is 400 SAME_SUCCESSIVE_MESSAGE.',
          params: leadParams,
          body: { type: 'object', additionalProperties: true, properties: {} },
          response: {
            201: {
              type: 'object',
              required: ['event_id'],
              properties: { event_id: { type: 'string', description: 'The reply’s event id' } },
            },
            ...errors,
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await api.reply(callerOf(request), request.params.lead_id, request.body, partnerWriteOf(request))),
    );
    app.get(
      '/v3/leads/:lead_id/metrics',
      {
        config: { partner },
        schema: {
          tags,
          security,
          summary: 'A lead’s cost metrics: not enabled (403 PARTNER_ENDPOINT_DISABLED)',
          description: 'The original enables it per client for partners who report revenue; pbs keeps no cost per lead.',
          params: leadParams,
          response: {
            200: {
              type: 'object',
              description: 'The original’s answer where it is enabled; pbs never answers it (always 403)',
              properties: {
                metrics: {
                  type: 'object',
                  properties: {
                    cost_per_lead: { type: 'object', properties: { value: { type: 'integer' }, currency_code: { type: 'string' } } },
                  },
                },
              },
            },
            403: error,
            400: error,
            404: error,
          },
        },
      },
      async (request) => api.metrics(callerOf(request), request.params.lead_id),
    );
    app.post(
      '/v3/leads/:lead_id/events/mark_as_read',
      {
        config: {
          partner,
          docs: {
            body: {
              type: 'object',
              required: ['event_id'],
              properties: { event_id: { type: 'string' }, time_read: { type: 'string', format: 'date-time' } },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Mark an event, and every earlier one, as read',
          params: leadParams,
          body: { type: 'object', additionalProperties: true, properties: {} },
          response: { 201: emptyAnswer, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await api.markRead(callerOf(request), request.params.lead_id, request.body, partnerWriteOf(request))),
    );
    app.post(
      '/v3/leads/:lead_id/mark_as_replied',
      {
        config: {
          partner,
          docs: {
            body: { type: 'object', required: ['reply_type'], properties: { reply_type: { type: 'string', enum: ['PHONE', 'EMAIL'] } } },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Record that the business replied outside the conversation (once per lead)',
          params: leadParams,
          body: { type: 'object', additionalProperties: true, properties: {} },
          response: { 201: emptyAnswer, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await api.markReplied(callerOf(request), request.params.lead_id, request.body, partnerWriteOf(request))),
    );
    app.get(
      '/v3/businesses/:business_id/lead_ids',
      {
        config: {
          partner: { ...partner, business: { deferred: 'the business named, which the token’s business user must manage (LeadApi)' } },
          docs: {
            querystring: {
              type: 'object',
              properties: {
                limit: { type: 'integer', minimum: LEAD_IDS_LIMIT.min, maximum: LEAD_IDS_LIMIT.max, default: LEAD_IDS_LIMIT.default },
                after_lead_id: { type: 'string' },
                created_after: { type: 'string', format: 'date-time' },
                created_before: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'A business’s lead ids, newest first',
          description: 'Continue with the last id as `after_lead_id` while `has_more`. The time window (inclusive) applies first.',
          params: businessParams,
          querystring: { type: 'object', additionalProperties: true, properties: {} },
          response: {
            200: {
              type: 'object',
              required: ['lead_ids', 'has_more'],
              properties: { lead_ids: { type: 'array', items: { type: 'string' } }, has_more: { type: 'boolean' } },
            },
            ...errors,
          },
        },
      },
      async (request) => api.leadIds(callerOf(request), request.params.business_id, request.query),
    );
    const subscriptionScope = { ...partner, business: { deferred: 'the businesses the token’s business user manages (LeadWebhooks)' } };
    app.post(
      '/v3/webhooks',
      {
        config: {
          partner: subscriptionScope,
          docs: {
            body: {
              type: 'object',
              required: ['webhook_url', 'webhook_type'],
              properties: {
                webhook_url: { type: 'string', format: 'uri' },
                webhook_type: { type: 'string', enum: ['leads_event'] },
                restricted_business_ids: { type: 'array', maxItems: MAX_RESTRICTED_BUSINESSES, items: { type: 'string' } },
              },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Subscribe to a business user’s lead webhooks for 14 days',
          description:
            'Lead events (NEW_EVENT, phone opt-in and opt-out) of the businesses the business user manages (or of those listed) go to ' +
            'your webhook endpoint, which `webhook_url` must be (pbs sends a partner’s webhooks to its one endpoint). One live ' +
            'subscription per business user: another is 409 until it is deleted or expires.',
          body: { type: 'object', additionalProperties: true, properties: {} },
          response: {
            200: {
              type: 'object',
              required: ['webhook_id', 'expiration_date'],
              properties: { webhook_id: { type: 'string' }, expiration_date: { type: 'string' } },
            },
            400: error,
            403: error,
            409: error,
          },
        },
      },
      async (request) => webhooks.subscribe(callerOf(request), request.body),
    );
    app.delete(
      '/v3/webhooks/:webhook_id',
      {
        config: { partner: subscriptionScope },
        schema: {
          tags,
          security,
          summary: 'Delete a lead webhook subscription',
          params: { type: 'object', required: ['webhook_id'], properties: { webhook_id: { type: 'string', maxLength: 200 } } },
          response: { 200: emptyAnswer, 404: error },
        },
      },
      async (request) => webhooks.unsubscribe(callerOf(request), request.params.webhook_id),
    );
  };
}
