import { noteAudit } from '../platform/audit/audit-trail.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import { nextCatalogSequence } from '../businesses/catalog-sequence.js';
import type { Catalog } from '../catalog/catalog.js';
import { toIso, type Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { LineSource } from '../platform/json-lines.js';
import { normalizeSettings, type ReservationSettings } from './inventory.js';
import { InventoryStore } from './inventory-store.js';
import { ReservationStore } from './reservation-store.js';
import { restaurantOf, type Restaurant } from './restaurants.js';
import { importSettings } from './settings-import.js';

const DAY_MS = 86_400_000;

/**
 * The restaurant's side of reservations, run by the operator: reservation settings (one, or
 * imported as JSON lines), the day sheet, and reservations made per day. Cancelling for the
 * restaurant is a booking change (ReservationService.cancelByRestaurant).
 */
export class ReservationOperator {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly catalog: Catalog,
    private readonly businesses: BusinessDirectory,
  ) {}

  private store() {
    return new ReservationStore(this.database.db, this.database.dialect);
  }

  /** A reservation by its id, as the operator's "find anything" names it; undefined when there is none. */
  async reservation(id: string) {
    const row = await this.store().findReservation(id);
    return row && { id: row.id, business_id: row.business_id, date: row.date, time: row.time, covers: row.covers, status: row.status };
  }

  /** The restaurant and its inventory, reservable or not. */
  private async restaurant(idOrAlias: string): Promise<Restaurant> {
    return restaurantOf(await this.catalog.find(idOrAlias), idOrAlias, { requireReservable: false });
  }

  async setSettings(businessIdOrAlias: string, input: unknown): Promise<ReservationSettings> {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const settings = normalizeSettings(input);
    // The settings before (when it took reservations already) and after, for the audit trail.
    const before = (await this.catalog.find(business.id))?.reservation?.settings;
    await this.database.transact(async (trx) => {
      noteAudit({ businessId: business.id, before: before ?? null, after: settings });
      await new InventoryStore(trx).saveSettings(business.id, settings, () => newId(), this.clock.now(), await nextCatalogSequence(trx));
    });
    this.catalog.invalidate();
    return settings;
  }

  /** Imports settings as JSON lines, streamed, all or nothing (settings-import.ts). */
  async importSettings(source: LineSource, onProgress?: (lines: number, phase: 'staged' | 'done') => void): Promise<{ imported: number }> {
    const result = await importSettings(this.database, this.clock, this.businesses, source, onProgress);
    this.catalog.invalidate();
    onProgress?.(result.imported, 'done');
    return result;
  }

  async getSettings(businessIdOrAlias: string): Promise<ReservationSettings> {
    const restaurant = await this.restaurant(businessIdOrAlias);
    return restaurant.settings;
  }

  /** The operator's day sheet: a restaurant's reservations (active and canceled) and live holds of one local date. */
  async daySheet(businessIdOrAlias: string, date: string) {
    const restaurant = await this.restaurant(businessIdOrAlias);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
      throw apiError('VALIDATION_ERROR', 'date must be a date, YYYY-MM-DD', { field: 'date' });
    }
    const now = this.clock.now();
    const sheet = await this.store().daySheet(restaurant.business.id, date, now);
    return {
      business_id: restaurant.business.id,
      date,
      reservations: sheet.reservations.map((r) => ({ ...r, created_at: toIso(r.created_at) })),
      holds: sheet.holds.map((h) => ({ ...h, expires_at: toIso(h.expires_at), created_at: toIso(h.created_at) })),
    };
  }

  /** Reservations made per UTC day over the last `days` days (today included), oldest first, every day listed. */
  async madePerDay(days: number) {
    const today = Math.floor(this.clock.now() / DAY_MS);
    const rows = new Map((await this.store().madePerDay((today - days + 1) * DAY_MS)).map((r) => [r.day, r]));
    return {
      days: Array.from({ length: days }, (_, i) => {
        const day = today - days + 1 + i;
        const row = rows.get(day);
        return { date: new Date(day * DAY_MS).toISOString().slice(0, 10), made: row?.made ?? 0, canceled: row?.canceled ?? 0 };
      }),
    };
  }
}
