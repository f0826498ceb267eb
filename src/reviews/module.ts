import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import type { ApiModule } from '../platform/module.js';
import { bodyObject } from '../platform/query.js';
import { SUPPORTED_LOCALES } from './locales.js';
import { publicResponseSchema, reviewEditSchema, reviewInputSchema } from './review-input.js';
import { REVIEW_PAGE, ReviewService, type ReviewServiceOptions } from './review-service.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { reviewsMigration } from './review-tables.js';
import { reviewCommand } from '../commands/review.js';
import { sendJson } from '../platform/http/send-json.js';

const partner: PartnerRouteConfig = { interface: 'private_reviews', scheme: 'bearer', business: { param: 'business_id' } };
const businessParams = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const reviewParams = {
  type: 'object',
  required: ['review_id'],
  properties: { review_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const partnerReview = {
  type: 'object',
  required: ['id', 'rating', 'text', 'time_created', 'url', 'user', 'public_response'],
  properties: {
    id: { type: 'string' },
    rating: { type: 'integer', minimum: 1, maximum: 5 },
    text: { type: 'string' },
    time_created: { type: 'string', description: '`YYYY-MM-DD HH:MM:SS`, Pacific time' },
    url: { type: 'string' },
    user: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string', description: 'First name and last initial' },
        image_url: { type: 'string' },
      },
    },
    public_response: {
      type: ['object', 'null'],
      properties: {
        text: { type: 'string' },
        time_created: { type: 'string', description: 'ISO 8601 with the Pacific offset' },
        business_user: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            role: { type: 'string', enum: ['OWNER', 'MANAGER', 'CUSTOMER_SERVICE', 'EMPLOYEE'] },
            photo_url: { type: 'string' },
          },
        },
      },
    },
  },
} as const;
const reviewList = { type: 'array', items: partnerReview } as const;
const pageQuery = {
  type: 'object',
  properties: {
    locale: { type: 'string', enum: [...SUPPORTED_LOCALES], description: 'Wins over Accept-Language; default en_US' },
    limit: { type: 'integer', minimum: REVIEW_PAGE.minLimit, maximum: REVIEW_PAGE.maxLimit, default: REVIEW_PAGE.defaultLimit },
    offset: { type: 'integer', minimum: 0, default: 0 },
    nested: {
      type: 'boolean',
      description: 'true: the list as {"reviews": {"review": […]}} (the published sample); default from PBS_REVIEWS_NESTED (false)',
    },
    business_ids: { type: 'string', description: 'Listed by the original interface; the path names the business, so it is ignored' },
  },
} as const;
/** A review as the operator's routes answer it: every text by locale, the author, the owner's public response. */
const operatorReview = {
  type: 'object',
  required: ['id', 'business_id', 'rating', 'locale', 'text', 'user', 'time_created', 'public_response', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    business_id: { type: 'string' },
    rating: { type: 'integer' },
    locale: { type: 'string' },
    text: { type: 'object', additionalProperties: { type: 'string' }, description: 'Each text by its locale' },
    user: {
      type: 'object',
      required: ['id', 'name', 'image_url'],
      properties: { id: { type: ['string', 'null'] }, name: { type: 'string' }, image_url: { type: ['string', 'null'] } },
    },
    time_created: { type: 'string' },
    public_response: {
      type: ['object', 'null'],
      required: ['text', 'time_created', 'business_user'],
      properties: {
        text: { type: 'string' },
        time_created: { type: 'string' },
        business_user: {
          type: 'object',
          required: ['name', 'role', 'photo_url'],
          properties: { name: { type: 'string' }, role: { type: 'string' }, photo_url: { type: 'string' } },
        },
      },
    },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;
const error = { $ref: 'ErrorResponse#' } as const;
const admin = { admin: true };
const adminTags = ['operator'];
const adminSecurity = [{ adminToken: [] }];

/** The reviews family's service (one use case: the reviews of a business, written and read). */
export function reviewServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  changes: ChangeFeed,
  options: ReviewServiceOptions,
): ReviewService {
  return new ReviewService(database, clock, businesses, changes, options);
}

/**
 * Private reviews (spec part 4; docs/contract/reviews-and-engagement.md §7.1; docs/reviews.md): the partner read and the
 * operator's reviews and public responses. Request checks stay in the service (typed schemas are
 * for the document), so bad values get the original's VALIDATION_ERROR wording.
 */
export function reviewsModule(service: ReviewService): ApiModule {
  return {
    name: 'reviews',
    tags: [
      {
        name: 'private reviews',
        description:
          "A linked business's reviews in full, by locale, with the owner's public response (Bearer API key or OAuth access token)",
      },
    ],
    commands: { review: (args, flags) => reviewCommand(service, args, flags) },
    migrations: [reviewsMigration],
    routes: async (fastify) => {
      const app = typedRoutes(fastify);
      app.get(
        '/v3/private/businesses/:business_id/reviews',
        {
          config: { partner, docs: { querystring: pageQuery } },
          schema: {
            tags: ['private reviews'],
            security: [{ bearerAuth: [] }],
            summary: "A business's reviews in the request's language, newest first, with the owner's public responses",
            description:
              'The locale comes from `locale`, else Accept-Language, else en_US; Content-Language answers it. A review shows in each language it has a text in. `nested=true` answers the list as `reviews.review`.',
            params: businessParams,
            querystring: { type: 'object', additionalProperties: true, properties: {} },
            response: {
              200: {
                type: 'object',
                required: ['reviews', 'total'],
                properties: {
                  reviews: { anyOf: [reviewList, { type: 'object', required: ['review'], properties: { review: reviewList } }] },
                  total: { type: 'integer' },
                  possible_languages: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
        async (request, reply) => {
          const { locale, json } = await service.partnerPage(request.business!.id, request.query, request.headers['accept-language']);
          // Serialized already (kept so); a string with a JSON type is sent as it is.
          return sendJson(reply.header('content-language', locale), json);
        },
      );

      app.get(
        '/admin/v1/businesses/:business_id/reviews',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: "A business's reviews, newest first, with every text",
            response: {
              200: {
                type: 'object',
                required: ['total', 'limit', 'offset', 'reviews'],
                properties: {
                  total: { type: 'integer' },
                  limit: { type: 'integer' },
                  offset: { type: 'integer' },
                  reviews: { type: 'array', items: operatorReview },
                },
              },
              404: error,
            },
            params: businessParams,
            querystring: pagingQuerySchema({ defaultLimit: 50, maxLimit: 500 }),
          },
        },
        async (request) => service.list(request.params.business_id, request.query),
      );
      app.post(
        '/admin/v1/businesses/:business_id/reviews',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'Add a review (a NEW_REVIEW_EVENT for the partners subscribed to the business)',
            params: businessParams,
            body: reviewInputSchema,
            response: { 201: operatorReview, 400: error, 404: error },
          },
        },
        async (request, reply) => reply.code(201).send(await service.add(request.params.business_id, bodyObject(request.body))),
      );
      app.post(
        '/admin/v1/reviews/import',
        {
          config: admin,
          bodyLimit: 32 * 1024 * 1024,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'Import reviews as JSON lines (every line is checked before any is stored)',
            response: {
              200: {
                type: 'object',
                required: ['imported', 'created', 'updated'],
                properties: { imported: { type: 'integer' }, created: { type: 'integer' }, updated: { type: 'integer' } },
              },
              400: error,
            },
            description:
              'Body: application/x-ndjson, one review per line with its `business_id` (id or alias), at most 20,000 lines; a line whose `id` exists replaces that review. `notify=false` stores without webhook events (loading history).',
            querystring: { type: 'object', properties: { notify: { type: 'boolean', default: true } } },
          },
        },
        async (request) => service.importJsonLines(typeof request.body === 'string' ? request.body : '', { notify: request.query.notify }),
      );
      app.get(
        '/admin/v1/reviews/:review_id',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'A review with every text',
            params: reviewParams,
            response: { 200: operatorReview, 404: error },
          },
        },
        async (request) => service.get(request.params.review_id),
      );
      app.patch(
        '/admin/v1/reviews/:review_id',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'Edit a review: the fields given replace its own, texts per language (a REVIEW_EDITED_EVENT)',
            response: { 200: operatorReview, 400: error, 404: error },
            params: reviewParams,
            body: reviewEditSchema,
          },
        },
        async (request) => service.edit(request.params.review_id, bodyObject(request.body)),
      );
      app.delete(
        '/admin/v1/reviews/:review_id',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: 'Remove a review (a REVIEW_REMOVED_EVENT)',
            params: reviewParams,
            response: { 204: { type: 'null', description: 'Removed' } },
          },
        },
        async (request, reply) => {
          await service.remove(request.params.review_id);
          return reply.code(204).send();
        },
      );
      app.put(
        '/admin/v1/reviews/:review_id/public-response',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: "Set the owner's public response (no webhook: owner replies send none)",
            response: { 200: operatorReview, 400: error, 404: error },
            params: reviewParams,
            body: publicResponseSchema,
          },
        },
        async (request) => service.respond(request.params.review_id, bodyObject(request.body)),
      );
      app.delete(
        '/admin/v1/reviews/:review_id/public-response',
        {
          config: admin,
          schema: {
            tags: adminTags,
            security: adminSecurity,
            summary: "Remove the owner's public response",
            params: reviewParams,
            response: { 200: operatorReview, 404: error },
          },
        },
        async (request) => service.removeResponse(request.params.review_id),
      );
    },
  };
}
