import type { ApiModule } from '../platform/module.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import { inventorySequenceMigration } from './inventory-tables.js';
import { reservationPages } from './pages.js';
import { bookingVersionsMigration, reservationsCreatedIndexMigration, dropStartTimeIndexesMigration, reservationsMigration } from './reservation-tables.js';
import type { ReservationService } from './reservation-service.js';
import { reservationAdminRoutes, reservationRoutes } from './routes.js';

/** Reservations: openings, holds, reservations, status, cancel; inventory; end-user pages. */
export function reservationsModule(service: ReservationService, keys: SecretKeys): ApiModule {
  return {
    name: 'reservations',
    migrations: [reservationsMigration, dropStartTimeIndexesMigration, bookingVersionsMigration, reservationsCreatedIndexMigration, inventorySequenceMigration],
    routes: async (app) => {
      await app.register(reservationRoutes(service));
      await app.register(reservationAdminRoutes(service));
      await app.register(reservationPages(service, keys));
    },
  };
}
