import type { FastifyInstance } from 'fastify';
import { searchBusinessSchema } from '../businesses/public-schemas.js';
import { sendJson } from '../platform/http/send-json.js';
import { openObject, typedRoutes } from '../platform/http/typed-routes.js';
import { MAX_RADIUS_M } from './search-params.js';
import type { SearchService } from './search-service.js';

const params: Record<string, string> = {
  location: 'city, "city, state", postal code or state pbs knows (or give latitude and longitude)',
  latitude: '−90 … 90',
  longitude: '−180 … 180',
  term: 'keyword or business name',
  radius: `metres, at most ${MAX_RADIUS_M}`,
  categories: 'category aliases, comma-separated or repeated (OR)',
  price: '1–4, comma-separated (OR)',
  open_now: 'true: only businesses open now',
  open_at: 'Unix time: only businesses open then (not with open_now)',
  attributes: 'comma-separated (AND); `reservation`: only reservable businesses (`attribute` also accepted)',
  sort_by: 'best_match (default), rating, review_count, distance',
  limit: '0–50, default 20',
  offset: 'limit + offset at most 240',
  locale: 'e.g. en_US',
  reservation_date: 'YYYY-MM-DD (with reservation_time and reservation_covers)',
  reservation_time: 'HH:MM',
  reservation_covers: '1–10',
  matches_party_size_param: 'true (default): only businesses with an opening for reservation_covers',
};

const typed: Record<string, object> = {
  location: { type: 'string', minLength: 1, maxLength: 250 },
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  term: { type: 'string' },
  radius: { type: 'integer', minimum: 0, maximum: MAX_RADIUS_M },
  categories: { type: 'array', items: { type: 'string' } },
  price: { type: 'array', maxItems: 4, items: { type: 'integer', minimum: 1, maximum: 4 } },
  open_now: { type: 'boolean' },
  open_at: { type: 'integer' },
  attributes: { type: 'array', items: { type: 'string' } },
  attribute: { type: 'string', description: 'the spec’s spelling of attributes' },
  sort_by: { type: 'string', enum: ['best_match', 'rating', 'review_count', 'distance'], default: 'best_match' },
  limit: { type: 'integer', minimum: 0, maximum: 50, default: 20 },
  offset: { type: 'integer', minimum: 0 },
  locale: { type: 'string', pattern: '^[a-z]{2,3}_[A-Z]{2}$' },
  reservation_date: { type: 'string', format: 'date' },
  reservation_time: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
  reservation_covers: { type: 'integer', minimum: 1, maximum: 10 },
  matches_party_size_param: { type: 'boolean', default: true },
};
/**
 * The parameters as the OpenAPI document types them; the route itself takes any (the service
 * answers each bad value with the spec's code).
 */
const searchQueryDocs = {
  type: 'object',
  properties: Object.fromEntries(Object.entries(params).map(([k, description]) => [k, { ...typed[k], description }])),
};

const searchResponse = {
  type: 'object',
  required: ['businesses', 'total', 'region'],
  properties: {
    businesses: { type: 'array', items: searchBusinessSchema },
    total: { type: 'integer' },
    region: {
      type: 'object',
      properties: { center: { type: 'object', properties: { latitude: { type: 'number' }, longitude: { type: 'number' } } } },
    },
  },
} as const;

/** `GET /v3/businesses/search`, with the reservation extension. */
export function searchRoutes(service: SearchService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/businesses/search',
      {
        config: {
          partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'searches the whole public catalogue' } },
          docs: { querystring: searchQueryDocs },
        },
        schema: {
          tags: ['reservations'],
          security: [{ bearerAuth: [] }],
          summary: 'Search businesses; with reservation_date/time/covers, adds data.reservation_openings (±30 minutes)',
          querystring: openObject,
          response: { 200: searchResponse, 400: { $ref: 'ErrorResponse#' } },
        },
      },
      // The service renders the JSON itself from kept record parts; the schema above documents it.
      (request, reply) => sendJson(reply, service.search(request.query)),
    );
  };
}
