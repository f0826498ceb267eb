import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Catalog } from '../catalog/catalog.js';
import type { ApiModule, PlatformContext } from '../platform/module.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';
import { SearchRecords } from './records.js';
import { searchRoutes } from './routes.js';
import { SearchService } from './search-service.js';

/** The search family's services: search itself, over the records it keeps (docs/search.md). */
export interface SearchServices {
  search: SearchService;
}

export function searchServices(
  ctx: PlatformContext,
  catalog: Catalog,
  occupancy: OccupancyIndex,
  businesses: BusinessDirectory,
): SearchServices {
  const records = new SearchRecords((ids) => businesses.records(ids), ctx.config.searchRecordsKept);
  return { search: new SearchService(ctx.clock, catalog, occupancy, records) };
}

/** `GET /v3/businesses/search`, with the reservation extension (routes.ts). */
export function searchModule({ search }: SearchServices): ApiModule {
  return {
    name: 'search',
    routes: async (fastify) => {
      await fastify.register(searchRoutes(search));
    },
  };
}
