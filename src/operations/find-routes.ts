import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { findAnything, MAX_FIND_LENGTH, type FindSources } from './find.js';

const foundSchema = {
  type: 'object',
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'title', 'detail', 'page'],
        properties: {
          kind: { type: 'string', enum: ['partner', 'business', 'reservation', 'request', 'message', 'lead'] },
          id: { type: 'string' },
          title: { type: 'string' },
          detail: { type: 'string' },
          page: { type: 'string', description: 'The console page that shows it (its hash route)' },
        },
      },
    },
  },
} as const;

/** `GET /admin/v1/find`: the operator's "find anything" (find.ts). */
export function findRoutes(sources: FindSources) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/find',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: ['operator'],
          security: [{ adminToken: [] }],
          summary:
            'Find anything by what identifies it: a partner (id or part of its name), a business (id, alias or start of its name), a reservation, a request id, a webhook message id or a lead',
          querystring: {
            type: 'object',
            required: ['q'],
            properties: { q: { type: 'string', minLength: 1, maxLength: MAX_FIND_LENGTH } },
          },
          response: { 200: foundSchema, 400: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => ({ results: await findAnything(sources, request.query.q) }),
    );
  };
}
