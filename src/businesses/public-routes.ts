import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { partnerInterfaces } from '../platform/auth/principal.js';
import type { BusinessLookup } from './business-lookup.js';
import { MATCH_THRESHOLDS, parseMatchQuery } from './business-match.js';
import { businessDetailsSchema, businessMatchSchema } from './public-schemas.js';

/**
 * The public business lookups every partner needs to find the ids its interfaces take (the
 * advertising spec: a business id "obtained through the business-matching interface"): any
 * partner interface admits the caller, with the API key as search takes it.
 */
const partner = { interface: partnerInterfaces, scheme: 'bearer', business: { unscoped: 'looks up the public catalogue' } } as const;
const tags = ['businesses'];
const security = [{ bearerAuth: [] }];
const errors = { 400: { $ref: 'ErrorResponse#' } };

const text = (maxLength: number, description: string, minLength = 0) => ({ type: 'string', minLength, maxLength, description });
const matchQueryDocs = {
  type: 'object',
  required: ['name', 'address1', 'city', 'state', 'country'],
  properties: {
    name: text(64, 'the business name', 1),
    address1: text(64, 'first address line (may be empty)'),
    address2: text(64, 'second address line'),
    address3: text(64, 'third address line'),
    city: text(64, 'city', 1),
    state: text(3, 'state or province code (ISO 3166-2)', 1),
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' },
    postal_code: text(12, 'postal code'),
    latitude: { type: 'number', minimum: -90, maximum: 90 },
    longitude: { type: 'number', minimum: -180, maximum: 180 },
    phone: text(32, 'phone number (compared by its last ten digits)', 1),
    yelp_business_id: { type: 'string', minLength: 22, maxLength: 22, description: 'a business id you already have: a hint' },
    limit: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    match_threshold: {
      type: 'string',
      enum: MATCH_THRESHOLDS,
      default: 'default',
      description: 'how sure a match must be (docs/business-match.md)',
    },
  },
} as const;

export function businessPublicRoutes(lookup: BusinessLookup) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/businesses/matches',
      {
        config: { partner, docs: { querystring: matchQueryDocs } },
        schema: {
          tags,
          security,
          summary: 'Business Match: the businesses a name and address describe, best first',
          description: 'Rules of each match_threshold: docs/business-match.md. Bad parameters: 400 VALIDATION_ERROR naming the field.',
          // Documented through config.docs: the rules answer every bad value with VALIDATION_ERROR and its field.
          querystring: { type: 'object', additionalProperties: true },
          response: { 200: businessMatchSchema, ...errors },
        },
      },
      async (request) => lookup.match(parseMatchQuery(request.query)),
    );
    app.get(
      '/v3/businesses/:business_id_or_alias',
      {
        config: { partner },
        schema: {
          tags,
          security,
          summary: 'Business details: the public record of one business, with its hours and photos',
          params: {
            type: 'object',
            required: ['business_id_or_alias'],
            properties: { business_id_or_alias: { type: 'string', minLength: 1, maxLength: 200 } },
          },
          response: { 200: businessDetailsSchema, 404: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => lookup.details(request.params.business_id_or_alias),
    );
  };
}
