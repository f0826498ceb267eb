import type { FastifyInstance } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { sendJson } from '../platform/http/send-json.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { ReviewService } from './review-service.js';
import { businessParams, reviewList, pageQuery } from './schemas.js';

const partner: PartnerRouteConfig = { interface: 'private_reviews', scheme: 'bearer', business: { param: 'business_id' } };

/** The partner read of a linked business's reviews (docs/contract/reviews-and-engagement.md §7.1). */
export function reviewRoutes(service: ReviewService) {
  return async (fastify: FastifyInstance) => {
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
      // Serialized already (kept as bytes). Not async: a kept page answers at once, with no promise.
      (request, reply) => {
        const { locale, json } = service.partnerPage(request.business!.id, request.query, request.headers['accept-language']);
        return sendJson(reply.header('content-language', locale), json);
      },
    );
  };
}
