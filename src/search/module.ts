import type { ApiModule, PlatformContext } from '../platform/module.js';
import type { Catalog } from '../catalog/catalog.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';
import { SearchService } from './search-service.js';

const params: Record<string, string> = {
  location: 'city, "city, state", postal code or state pbs knows (or give latitude and longitude)',
  latitude: '−90 … 90',
  longitude: '−180 … 180',
  term: 'keyword or business name',
  radius: 'metres, at most 40000',
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

/** `GET /v3/businesses/search`, with the reservation extension. */
export function searchModule(ctx: PlatformContext, catalog: Catalog, occupancy: OccupancyIndex): ApiModule {
  const service = new SearchService(ctx.clock, catalog, occupancy);
  return {
    name: 'search',
    routes: async (app) => {
      app.get(
        '/v3/businesses/search',
        {
          config: { partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'searches the whole public catalogue' } } },
          schema: {
            tags: ['reservations'],
            security: [{ bearerAuth: [] }],
            summary: 'Search businesses; with reservation_date/time/covers, adds data.reservation_openings (±30 minutes)',
            // Documented without constraints: the service gives each bad value the spec's code.
            querystring: { properties: Object.fromEntries(Object.entries(params).map(([k, description]) => [k, { description }])) },
            response: { 400: { $ref: 'ErrorResponse#' } },
          },
        },
        async (request) => service.search(request.query as Record<string, unknown>),
      );
    },
  };
}
