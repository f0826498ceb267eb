import type { ApiModule } from '../platform/module.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import { inventorySequenceMigration } from './inventory-tables.js';
import { reservationPages } from './page-routes.js';
import {
  bookingVersionsMigration,
  reservationsCreatedIndexMigration,
  dropStartTimeIndexesMigration,
  reservationsMigration,
} from './reservation-tables.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Catalog } from '../catalog/catalog.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { OccupancyIndex } from './occupancy.js';
import { ReservationOperator } from './reservation-operator.js';
import { ReservationService, type ReservationOptions } from './reservation-service.js';
import { reservationAdminRoutes, reservationRoutes } from './routes.js';

/** The reservations family's services: the bookings (partner side and pages) and the restaurant's side. */
export interface ReservationServices {
  bookings: ReservationService;
  operator: ReservationOperator;
}

export function reservationServices(
  database: Database,
  clock: Clock,
  catalog: Catalog,
  occupancy: OccupancyIndex,
  changes: ChangeFeed,
  businesses: BusinessDirectory,
  options: ReservationOptions,
): ReservationServices {
  return {
    bookings: new ReservationService(database, clock, catalog, occupancy, changes, businesses, options),
    operator: new ReservationOperator(database, clock, catalog, businesses),
  };
}

/** Reservations: openings, holds, reservations, status, cancel; inventory; end-user pages. */
export function reservationsModule({ bookings: service, operator }: ReservationServices, keys: SecretKeys): ApiModule {
  return {
    name: 'reservations',
    tags: [
      {
        name: 'reservations',
        description: 'Reservation partner API (Bearer API key): search with availability, openings, holds, reservations',
      },
    ],
    migrations: [
      reservationsMigration,
      dropStartTimeIndexesMigration,
      bookingVersionsMigration,
      reservationsCreatedIndexMigration,
      inventorySequenceMigration,
    ],
    routes: async (app) => {
      await app.register(reservationRoutes(service));
      await app.register(reservationAdminRoutes(operator, service));
      await app.register(reservationPages(service, keys));
    },
  };
}
