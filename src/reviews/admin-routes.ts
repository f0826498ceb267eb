import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { bodyObject } from '../platform/query.js';
import { publicResponseSchema, reviewEditSchema, reviewInputSchema } from './review-input.js';
import type { ReviewService } from './review-service.js';
import { businessParams, reviewParams, operatorReview, error } from './schemas.js';

const adminTags = ['operator'];
const adminSecurity = [{ adminToken: [] }];

/** The operator's reviews: list, add, import, read, edit, delete, and the owner's public response (docs/reviews.md). */
export function reviewAdminRoutes(service: ReviewService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/businesses/:business_id/reviews',
      {
        config: { operator: 'viewer' },
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
        config: { operator: 'support' },
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
        config: { operator: 'admin' },
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
        config: { operator: 'viewer' },
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
        config: { operator: 'support' },
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
        config: { operator: 'support' },
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
        config: { operator: 'support' },
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
        config: { operator: 'support' },
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
  };
}
