import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { ReservationOperator } from '../reservations/reservation-operator.js';
import { businessCommand } from '../commands/business.js';
import { businessAdminRoutes } from './admin-routes.js';
import { BusinessLookup } from './business-lookup.js';
import { BusinessService } from './business-service.js';
import { businessPublicRoutes } from './public-routes.js';

/** The businesses family's service: the catalogue's records, their imports and the one lookup every family uses. */
export function businessServices(database: Database, clock: Clock, onChanged: () => void): BusinessService {
  return new BusinessService(database, clock, onChanged);
}

/**
 * The catalogue's businesses: the operator's records and imports, and the partners' public
 * reads (Business Match and business details). The tables are foundation migrations
 * (app.ts): every family's tables reference them.
 */
export function businessesModule(
  database: Database,
  clock: Clock,
  businesses: BusinessService,
  reservations: ReservationOperator,
): ApiModule {
  const lookup = new BusinessLookup(database.db, clock);
  return {
    name: 'businesses',
    tags: [
      {
        name: 'businesses',
        description: 'Public business data: Business Match and business details (Bearer API key; any partner interface)',
      },
    ],
    routes: async (app) => {
      await businessAdminRoutes(businesses)(app);
      await businessPublicRoutes(lookup)(app);
    },
    commands: { business: (args, flags) => businessCommand({ businesses, reservations }, args, flags) },
  };
}
