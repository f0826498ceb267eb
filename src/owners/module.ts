import type { BusinessDirectory } from '../businesses/business-service.js';
import { ownerCommand } from '../commands/owner.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { businessUserAdminRoutes } from './admin-routes.js';
import { BusinessUserService } from './owner-service.js';
import { businessUsersMigration } from './owner-tables.js';

/** The owners family's service: business users and the businesses they manage. */
export function ownerServices(database: Database, clock: Clock, businesses: BusinessDirectory): BusinessUserService {
  return new BusinessUserService(database, clock, businesses);
}

/** Business users (docs/owners.md): the people a partner acts for once they authorize it. */
export function ownersModule(service: BusinessUserService): ApiModule {
  return {
    name: 'owners',
    commands: { owner: (args, flags) => ownerCommand(service, args, flags) },
    migrations: [businessUsersMigration],
    routes: async (fastify) => {
      await fastify.register(businessUserAdminRoutes(service));
    },
  };
}
