import type { FastifyInstance } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { openObject, partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import { MAX_IDS, type SubscriptionService } from './subscription-service.js';
import { subscriptionTypes } from './subscription-tables.js';

const perSecond = 5;
const v3 = (iface: PartnerRouteConfig['interface'], business: PartnerRouteConfig['business']): { partner: PartnerRouteConfig } => ({
  partner: { interface: iface, scheme: 'bearer', business, defaultPerSecond: perSecond },
});
const listing = (business: PartnerRouteConfig['business']): { partner: PartnerRouteConfig } => ({
  partner: { interface: 'listing_management', scheme: 'basic', business, defaultPerSecond: perSecond },
});
const ownSubscriptions = { unscoped: "lists the caller's own subscriptions" };
const bearer = [{ bearerAuth: [] }];
const basic = [{ basicAuth: [] }];
const errors = { 400: { $ref: 'ErrorResponse#' }, 403: { $ref: 'ErrorResponse#' }, 413: { $ref: 'ErrorResponse#' } };
const changeBody = {
  type: 'object',
  required: ['subscription_types', 'business_ids'],
  properties: {
    subscription_types: { type: 'array', items: { type: 'string', enum: [...subscriptionTypes] } },
    business_ids: { type: 'array', items: { type: 'string' }, description: '1 to 1,000 business ids' },
  },
} as const;
const idsBody = (max: number) =>
  ({
    type: 'object',
    required: ['business_ids'],
    properties: { business_ids: { type: 'array', items: { type: 'string' }, description: `1 to ${max} business ids` } },
  }) as const;
const listResponse = (withType: boolean) => ({
  type: 'object',
  properties: {
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    ...(withType ? { subscription_type: { type: 'string' } } : {}),
    subscriptions: {
      type: 'array',
      items: { type: 'object', properties: { business_id: { type: 'string' }, subscribed_at: { type: 'string' } } },
    },
  },
});
const empty = { type: 'object', additionalProperties: false, properties: {} } as const;
/** Typed for the document; the service checks the values (route schemas accept anything). */
const listQueryDocs = {
  type: 'object',
  required: ['subscription_type'],
  properties: {
    subscription_type: { type: 'string', enum: [...subscriptionTypes] },
    limit: { type: 'integer', minimum: 0, maximum: 10000, default: 100 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;
const listingQueryDocs = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 10000, default: 50 }, offset: { type: 'integer', minimum: 0, default: 0 } },
} as const;

/**
 * Business subscriptions (v3, asynchronous), the replaced webhook allow-list and the deprecated
 * listing-management interface. Bodies are checked by the service, so each bad value gets the
 * same code on every interface.
 */
export function subscriptionRoutes(service: SubscriptionService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const tags = ['subscriptions'];
    app.get(
      '/v3/businesses/subscriptions',
      {
        config: { ...v3('business_subscriptions', ownSubscriptions), docs: { querystring: listQueryDocs } },
        schema: {
          tags,
          security: bearer,
          summary: "The partner's subscriptions of one type",
          querystring: openObject,
          response: { 200: listResponse(true), ...errors },
        },
      },
      async (request) => service.list(principalOf(request), request.query),
    );
    for (const [method, action] of [
      ['POST', 'subscribe'],
      ['DELETE', 'unsubscribe'],
    ] as const) {
      app.route({
        method,
        url: '/v3/businesses/subscriptions',
        config: v3('business_subscriptions', {
          deferred: 'the subscriptions.apply task refuses ids of businesses not linked to the caller and records them on the request',
        }),
        schema: {
          tags,
          security: bearer,
          summary: `${action === 'subscribe' ? 'Subscribe' : 'Unsubscribe'} businesses (asynchronous: 202, applied by a background task)`,
          body: changeBody,
          response: { 202: empty, ...errors },
        },
        handler: async (request, reply) =>
          reply.code(202).send(await service.request(principalOf(request), action, request.body, partnerWriteOf(request))),
      });
    }
    for (const [path, action] of [
      ['add', 'subscribe'],
      ['remove', 'unsubscribe'],
    ] as const) {
      app.post(
        `/v3/webhooks/whitelists/businesses/${path}`,
        {
          config: v3('webhooks', { bodyList: 'business_ids', max: MAX_IDS.whitelist }),
          schema: {
            tags,
            security: bearer,
            summary: `Replaced by business subscriptions: ${path} WEBHOOK subscriptions at once`,
            body: idsBody(100),
            response: { 200: { type: 'object', properties: { whitelist_business_ids_count: { type: 'integer' } } }, ...errors },
          },
        },
        async (request) => service.whitelist(principalOf(request), action, request.body, partnerWriteOf(request)),
      );
      app.post(
        `/listing_management/businesses/${path}/v1`,
        {
          config: listing({ bodyList: 'business_ids', max: MAX_IDS.listingManagement }),
          schema: {
            tags,
            security: basic,
            summary: `Deprecated: ${path} LISTING_MANAGEMENT subscriptions`,
            body: idsBody(500),
            response: { 200: empty, ...errors },
          },
        },
        async (request) => service.listingManagementChange(principalOf(request), action, request.body, partnerWriteOf(request)),
      );
    }
    app.get(
      '/listing_management/businesses/v1',
      {
        config: { ...listing(ownSubscriptions), docs: { querystring: listingQueryDocs } },
        schema: {
          tags,
          security: basic,
          summary: 'Deprecated: LISTING_MANAGEMENT subscriptions',
          querystring: openObject,
          response: { 200: listResponse(false), ...errors },
        },
      },
      async (request) => service.listingManagementList(principalOf(request), request.query),
    );
  };
}
