import type { FastifyInstance } from 'fastify';
import { openObject, partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import type { ProgramFeatureService } from './feature-service.js';
import { FEATURE_TYPES } from './program-features.js';
import { programParams } from './schemas.js';

const partner: { partner: PartnerRouteConfig } = {
  partner: {
    interface: 'advertising',
    scheme: 'basic',
    business: { unscoped: "acts on the caller's own program; another partner's answers like an unknown id" },
  },
};
const error = { $ref: 'ErrorResponse#' } as const;
const featureList = { type: 'array', items: { type: 'string', enum: [...FEATURE_TYPES] } } as const;
/** Each feature's fields are documented in docs/advertising.md; the service checks them (400 INVALID_REQUEST naming the field). */
const features = {
  type: 'object',
  description: 'Feature objects keyed by type (docs/contract/advertising.md §8.8), e.g. {"AD_GOAL": {"ad_goal": "CALLS"}}',
  propertyNames: { enum: [...FEATURE_TYPES] },
  additionalProperties: { type: 'object', additionalProperties: true },
} as const;
const featuresAnswer = { type: 'object', required: ['features'], properties: { features } } as const;

/**
 * The Program Feature API (docs/contract/advertising.md §8.8): `GET|POST|DELETE /program/{program_id}/features/v1`, with
 * Basic credentials, on the caller's own programs; and the operator's view of a program's
 * features. Bodies are checked by the service, which answers the advertising codes (400 Invalid
 * Request naming the field), not the validator's.
 */
export function programFeatureRoutes(service: ProgramFeatureService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const tags = ['advertising'];
    const security = [{ basicAuth: [] }];
    const path = '/program/:program_id/features/v1';

    app.get(
      path,
      {
        config: partner,
        schema: {
          tags,
          security,
          summary: "A program's features: every feature its type may have, as set or as its default",
          params: programParams,
          response: { 200: featuresAnswer, 404: error },
        },
      },
      async (request) => service.read(principalOf(request).partnerId, request.params.program_id),
    );
    app.post(
      path,
      {
        config: { ...partner, docs: { body: { type: 'object', required: ['features'], properties: { features } } } },
        schema: {
          tags,
          security,
          summary: 'Set some of a program’s features (a field left out keeps its value); answers every feature',
          params: programParams,
          response: { 200: featuresAnswer, 400: error, 404: error, 409: error },
        },
      },
      async (request) => service.set(principalOf(request).partnerId, request.params.program_id, request.body, partnerWriteOf(request)),
    );
    app.delete(
      path,
      {
        config: {
          ...partner,
          docs: {
            body: { type: 'object', properties: { features: featureList } },
            querystring: {
              type: 'object',
              properties: { features: { type: 'string', description: 'comma-separated types, instead of a body' } },
            },
          },
        },
        schema: {
          tags,
          security,
          summary: 'Delete some of a program’s features (back to their defaults); answers every feature',
          params: programParams,
          querystring: openObject,
          response: { 200: featuresAnswer, 400: error, 404: error, 409: error },
        },
      },
      async (request) =>
        service.remove(principalOf(request).partnerId, request.params.program_id, request.body, request.query, partnerWriteOf(request)),
    );

    app.get(
      '/admin/v1/advertising/programs/:program_id/features',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: ['operator'],
          security: [{ adminToken: [] }],
          summary: "A program's features as its partner set them, with when",
          params: programParams,
          response: {
            200: {
              type: 'object',
              required: ['program_id', 'partner_id', 'program_type', 'available_features', 'set'],
              properties: {
                program_id: { type: 'string' },
                partner_id: { type: 'string' },
                program_type: { type: 'string' },
                available_features: featureList,
                set: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['feature_type', 'value', 'updated_at'],
                    properties: {
                      feature_type: { type: 'string' },
                      value: { type: 'object', additionalProperties: true },
                      updated_at: { type: 'string' },
                    },
                  },
                },
              },
            },
            404: error,
          },
        },
      },
      async (request) => service.operatorView(request.params.program_id),
    );
  };
}
