import type { BusinessRef } from '../businesses/business-store.js';
import type { CatalogBusiness } from '../catalog/catalog.js';
import { apiError } from '../platform/errors.js';
import type { RestaurantInventory } from './occupancy.js';
import type { RestaurantModel } from './reservation-store.js';

/** A restaurant as reservations use it: its business, settings, tables and in-memory inventory. */
export interface Restaurant extends RestaurantModel {
  business: BusinessRef;
  inventory: RestaurantInventory;
}

/** The restaurant of a catalogue entry, or the error a partner gets for it. */
export function restaurantOf(entry: CatalogBusiness | undefined, idOrAlias: string, { requireReservable = true } = {}): Restaurant {
  if (!entry) throw apiError('BUSINESS_NOT_FOUND', `Business not found: ${idOrAlias}`);
  if (!entry.reservation) throw apiError('DOES_NOT_TAKE_RESERVATIONS');
  if (requireReservable && (!entry.reservation.settings.accepts_reservations || entry.isClosed))
    throw apiError('DOES_NOT_TAKE_RESERVATIONS');
  return {
    businessId: entry.id,
    settings: entry.reservation.settings,
    tables: entry.reservation.tables,
    inventory: entry.reservation,
    business: { id: entry.id, alias: entry.alias, name: entry.name, timezone: entry.timezone, isClosed: entry.isClosed },
  };
}

/** The tables that seat `covers`, in the order bookings take them (smallest first). */
export function fittingTables(r: Restaurant, covers: number): string[] {
  return r.tables.filter((t) => covers >= t.min_party && covers <= t.max_party).map((t) => t.id);
}
