import type { Selectable } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
import { CHANGE_LOG_INSERT } from '../platform/change-feed.js';
import { ChangeWithEvent, type DomainEvent } from '../platform/events.js';
import { bumpCatalogVersion } from '../businesses/business-store.js';
import type { ReservationSettings } from './inventory.js';

export interface RestaurantSettingsTable {
  business_id: string;
  accepts_reservations: number;
  settings: string;
  updated_at: number;
}

export interface RestaurantTablesTable {
  id: string;
  business_id: string;
  name: string;
  min_party: number;
  max_party: number;
  /** Removed tables stay (bookings reference them) but take no new parties. */
  active: number;
}

export interface HoldsTable {
  id: string;
  business_id: string;
  partner_id: string;
  table_id: string;
  unique_id: string;
  date: string;
  time: string;
  covers: number;
  start_at: number;
  end_at: number;
  expires_at: number;
  status: 'active' | 'consumed' | 'released';
  created_at: number;
}

export interface ReservationsTable {
  id: string;
  business_id: string;
  partner_id: string | null;
  table_id: string;
  hold_id: string | null;
  unique_id: string;
  date: string;
  time: string;
  covers: number;
  start_at: number;
  end_at: number;
  first_name: string;
  last_name: string;
  phone: string;
  email: string;
  notes: string | null;
  status: 'active' | 'canceled';
  canceled_by: 'guest' | 'restaurant' | null;
  created_at: number;
  canceled_at: number | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    restaurant_settings: RestaurantSettingsTable;
    restaurant_tables: RestaurantTablesTable;
    holds: HoldsTable;
    reservations: ReservationsTable;
  }
}

export type HoldRow = Selectable<HoldsTable>;
export type ReservationRow = Selectable<ReservationsTable>;
export type TableRow = Selectable<RestaurantTablesTable>;

export const reservationsMigration: PbsMigration = {
  name: '0100_reservations',
  async up(db) {
    await db.schema
      .createTable('restaurant_settings')
      .addColumn('business_id', 'text', (c) => c.primaryKey().references('businesses.id').onDelete('cascade'))
      .addColumn('accepts_reservations', 'integer', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('restaurant_tables')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull().references('businesses.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('min_party', 'integer', (c) => c.notNull())
      .addColumn('max_party', 'integer', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      .addUniqueConstraint('restaurant_tables_name', ['business_id', 'name'])
      .execute();
    for (const table of ['holds', 'reservations'] as const) {
      let builder = db.schema
        .createTable(table)
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('business_id', 'text', (c) => c.notNull())
        .addColumn('partner_id', 'text', (c) => (table === 'holds' ? c.notNull() : c))
        .addColumn('table_id', 'text', (c) => c.notNull())
        .addColumn('unique_id', 'text', (c) => c.notNull())
        .addColumn('date', 'text', (c) => c.notNull())
        .addColumn('time', 'text', (c) => c.notNull())
        .addColumn('covers', 'integer', (c) => c.notNull())
        .addColumn('start_at', 'bigint', (c) => c.notNull())
        .addColumn('end_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull());
      if (table === 'holds') builder = builder.addColumn('expires_at', 'bigint', (c) => c.notNull());
      else {
        builder = builder
          .addColumn('hold_id', 'text')
          .addColumn('first_name', 'text', (c) => c.notNull())
          .addColumn('last_name', 'text', (c) => c.notNull())
          .addColumn('phone', 'text', (c) => c.notNull())
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('notes', 'text')
          .addColumn('canceled_by', 'text')
          .addColumn('canceled_at', 'bigint');
      }
      await builder.execute();
      // No index holds `status`: consuming or canceling then rewrites only the row, not index
      // entries (fewer pages written per commit); queries filter status on the few rows found.
      await db.schema.createIndex(`${table}_business_time`).on(table).columns(['business_id', 'start_at']).execute();
      await db.schema.createIndex(`${table}_guest`).on(table).columns(['business_id', 'unique_id']).execute();
      await db.schema.createIndex(`${table}_time`).on(table).column('start_at').execute();
    }
  },
};

/**
 * The start-time-only indexes served a search query across all restaurants; availability now
 * comes from the in-memory occupancy index, and every index is one more page written per booking.
 */
export const dropStartTimeIndexesMigration: PbsMigration = {
  name: '0101_drop_start_time_indexes',
  async up(db) {
    await db.schema.dropIndex('holds_time').ifExists().execute();
    await db.schema.dropIndex('reservations_time').ifExists().execute();
  },
};

export interface RestaurantModel {
  businessId: string;
  settings: ReservationSettings;
  tables: TableRow[];
}

export interface Occupied {
  table_id: string;
  start_at: number;
  end_at: number;
}

/** A hold or reservation as availability sees it; reservations never lapse (expires_at Infinity). */
export interface Booking extends Occupied {
  id: string;
  expires_at: number;
}

/** SQL of restaurant inventory, holds and reservations. */
/** Turn times are at most 10 hours (inventory schema); a day's margin is safe. */
const EARLIEST_OVERLAP_MS = 24 * 3600_000;

// The statements on the booking path, compiled once (see RawStatement).
// Also records the change for other processes (see ChangeFeed), in the same round trip.
const LOCK = new RawStatement(`with notice as (${CHANGE_LOG_INSERT}) select 1 from restaurant_settings where business_id = ? for update`);
// `start_at > earliest` bounds the index range scan: a booking that starts more than a day before
// the window cannot reach into it (turn times are at most 10 hours).
const OCCUPIED = new RawStatement<Occupied>(
  `select table_id, start_at, end_at from holds
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ? and expires_at > ? and id <> ?
   union all
   select table_id, start_at, end_at from reservations
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ?`,
);
const LIVE_BOOKINGS = `select id, business_id, table_id, start_at, end_at, expires_at from holds
     where status = 'active' and start_at > ? and end_at > ? and expires_at > ?{AND}
   union all
   select id, business_id, table_id, start_at, end_at, null from reservations
     where status = 'active' and start_at > ? and end_at > ?{AND}`;
const LIVE_BOOKINGS_ALL = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(LIVE_BOOKINGS.replaceAll('{AND}', ''));
const LIVE_BOOKINGS_OF = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(LIVE_BOOKINGS.replaceAll('{AND}', ' and business_id = ?'));
const INSERT_HOLD = new RawStatement(
  `insert into holds (id, business_id, partner_id, table_id, unique_id, date, time, covers, start_at, end_at, expires_at, status, created_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const RELEASE_GUEST_HOLDS = new RawStatement<{ id: string }>(
  `update holds set status = 'released' where business_id = ? and unique_id = ? and status = 'active' returning id`,
);
const CONSUME_HOLD = new RawStatement<HoldRow>(`update holds set status = 'consumed' where id = ? and status = 'active' returning *`);
const INSERT_RESERVATION = new ChangeWithEvent(
  `insert into reservations (id, business_id, partner_id, table_id, hold_id, unique_id, date, time, covers, start_at, end_at,
     first_name, last_name, phone, email, notes, status, canceled_by, created_at, canceled_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

// On PostgreSQL every statement of a booking is a round trip (a write that wakes the server), so
// the booking path folds statements together where that keeps the same answers:

/** A reservation's two reads in one: tables taken around the slot, and the guest's nearby reservations. */
const RESERVATION_CHECKS = new RawStatement<Occupied & { kind: 'occupied' | 'duplicate' }>(
  `select 'occupied' as kind, table_id, start_at, end_at from holds
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ? and expires_at > ? and id <> ?
   union all
   select 'occupied', table_id, start_at, end_at from reservations
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ?
   union all
   select 'duplicate', table_id, start_at, end_at from reservations
     where business_id = ? and unique_id = ? and status = 'active' and start_at > ? and start_at < ?`,
);

/**
 * PostgreSQL: the restaurant lock and the hold's consumption in one statement. Safe because the
 * hold existed before this transaction began, and an UPDATE re-checks a row another transaction
 * changed meanwhile; the reads that need everything committed before the lock come after it.
 */
const LOCK_AND_CONSUME_HOLD = new RawStatement<HoldRow>(
  `with notice as (${CHANGE_LOG_INSERT}),
   restaurant as materialized (select 1 from restaurant_settings where business_id = ? for update)
   update holds set status = 'consumed' where id = ? and status = 'active' and exists (select 1 from restaurant) returning *`,
);

/**
 * PostgreSQL, after the lock: the guest's earlier holds released and the tables taken, in one
 * statement. Both parts read the same snapshot, so the released holds are left out by id.
 */
const RELEASE_AND_OCCUPIED = new RawStatement<Partial<Occupied> & { kind: 'released' | 'occupied'; id: string | null }>(
  `with released as (
     update holds set status = 'released' where business_id = ? and unique_id = ? and status = 'active' returning id
   )
   select 'released' as kind, id, null as table_id, null as start_at, null as end_at from released
   union all
   select 'occupied', null, table_id, start_at, end_at from holds
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ? and expires_at > ?
       and id not in (select id from released)
   union all
   select 'occupied', null, table_id, start_at, end_at from reservations
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ?`,
);

export class ReservationStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  async saveSettings(businessId: string, settings: ReservationSettings, tableIds: (name: string) => string, now: number) {
    const row = { business_id: businessId, accepts_reservations: settings.accepts_reservations ? 1 : 0, settings: JSON.stringify(settings), updated_at: now };
    await this.db
      .insertInto('restaurant_settings')
      .values(row)
      .onConflict((oc) => oc.column('business_id').doUpdateSet({ accepts_reservations: row.accepts_reservations, settings: row.settings, updated_at: now }))
      .execute();
    await this.db.updateTable('restaurant_tables').set({ active: 0 }).where('business_id', '=', businessId).execute();
    for (const t of settings.tables) {
      await this.db
        .insertInto('restaurant_tables')
        .values({ id: tableIds(t.name), business_id: businessId, name: t.name, min_party: t.min_party, max_party: t.max_party, active: 1 })
        .onConflict((oc) => oc.columns(['business_id', 'name']).doUpdateSet({ min_party: t.min_party, max_party: t.max_party, active: 1 }))
        .execute();
    }
    await bumpCatalogVersion(this.db);
  }

  /**
   * Serialises bookings of one restaurant across connections and processes (PostgreSQL row
   * lock), and records `notice` in the change log, which other processes read once it commits.
   */
  async lockRestaurant(businessId: string, notice: string): Promise<void> {
    if (this.dialect !== 'postgres') return; // SQLite transactions are already serialised
    await LOCK.rows(this.db, this.dialect, [notice, businessId]);
  }

  /** Tables taken between two instants: live holds and active reservations. */
  occupied(businessId: string, from: number, to: number, now: number, exceptHoldId = ''): Promise<Occupied[]> {
    const earliest = from - EARLIEST_OVERLAP_MS;
    return OCCUPIED.rows(this.db, this.dialect, [businessId, earliest, to, from, now, exceptHoldId, businessId, earliest, to, from]);
  }

  /** Every restaurant's holds live at `since` and reservations ending after it (for the occupancy index). */
  async liveBookings(since: number): Promise<Array<Booking & { business_id: string }>> {
    const earliest = since - EARLIEST_OVERLAP_MS;
    return withLapse(await LIVE_BOOKINGS_ALL.rows(this.db, this.dialect, [earliest, since, since, earliest, since]));
  }

  /** The same for some restaurants. */
  async liveBookingsOf(businessIds: string[], since: number): Promise<Array<Booking & { business_id: string }>> {
    const earliest = since - EARLIEST_OVERLAP_MS;
    const out: Array<Booking & { business_id: string }> = [];
    for (const id of businessIds) {
      out.push(...withLapse(await LIVE_BOOKINGS_OF.rows(this.db, this.dialect, [earliest, since, since, id, earliest, since, id])));
    }
    return out;
  }

  async insertHold(row: HoldRow): Promise<void> {
    await INSERT_HOLD.run(this.db, this.dialect, [
      row.id, row.business_id, row.partner_id, row.table_id, row.unique_id, row.date, row.time, row.covers,
      row.start_at, row.end_at, row.expires_at, row.status, row.created_at,
    ]);
  }

  /**
   * For a new hold, after `lockRestaurant`: the guest's earlier holds here released (one live hold
   * per guest per restaurant; their ids are returned) and the tables taken between two instants.
   */
  async releaseGuestHoldsAndFindOccupied(
    businessId: string,
    uniqueId: string,
    from: number,
    to: number,
    now: number,
  ): Promise<{ released: string[]; occupied: Occupied[] }> {
    if (this.dialect !== 'postgres') {
      const released = (await RELEASE_GUEST_HOLDS.rows(this.db, this.dialect, [businessId, uniqueId])).map((r) => r.id);
      return { released, occupied: await this.occupied(businessId, from, to, now) };
    }
    const earliest = from - EARLIEST_OVERLAP_MS;
    const rows = await RELEASE_AND_OCCUPIED.rows(this.db, this.dialect, [businessId, uniqueId, businessId, earliest, to, from, now, businessId, earliest, to, from]);
    return {
      released: rows.filter((r) => r.kind === 'released').map((r) => r.id as string),
      occupied: rows.filter((r) => r.kind === 'occupied').map((r) => ({ table_id: r.table_id!, start_at: r.start_at!, end_at: r.end_at! })),
    };
  }

  /**
   * For a reservation: takes the restaurant lock (see `lockRestaurant`) and marks the hold
   * consumed, returning it (undefined when it is not an active hold); the caller checks it and
   * rolls back if it cannot be used.
   */
  async lockAndConsumeHold(businessId: string, notice: string, holdId: string): Promise<HoldRow | undefined> {
    const rows =
      this.dialect === 'postgres'
        ? await LOCK_AND_CONSUME_HOLD.rows(this.db, this.dialect, [notice, businessId, holdId])
        : await CONSUME_HOLD.rows(this.db, this.dialect, [holdId]); // SQLite transactions are already serialised
    return rows[0];
  }

  /** For a reservation, after the lock: the tables taken around the slot, and how many of the guest's reservations start in (dupFrom, dupTo). */
  async reservationChecks(
    businessId: string,
    uniqueId: string,
    slot: { from: number; to: number; now: number; exceptHoldId: string },
    dupFrom: number,
    dupTo: number,
  ): Promise<{ occupied: Occupied[]; duplicates: number }> {
    const earliest = slot.from - EARLIEST_OVERLAP_MS;
    const rows = await RESERVATION_CHECKS.rows(this.db, this.dialect, [
      businessId, earliest, slot.to, slot.from, slot.now, slot.exceptHoldId,
      businessId, earliest, slot.to, slot.from,
      businessId, uniqueId, dupFrom, dupTo,
    ]);
    return { occupied: rows.filter((r) => r.kind === 'occupied'), duplicates: rows.filter((r) => r.kind === 'duplicate').length };
  }

  /** Inserts a reservation and records `event` with it (one round trip on PostgreSQL). */
  async insertReservation(r: ReservationRow, event: DomainEvent): Promise<void> {
    await INSERT_RESERVATION.run(this.db, this.dialect, [
      r.id, r.business_id, r.partner_id, r.table_id, r.hold_id, r.unique_id, r.date, r.time, r.covers, r.start_at, r.end_at,
      r.first_name, r.last_name, r.phone, r.email, r.notes, r.status, r.canceled_by, r.created_at, r.canceled_at,
    ], event);
  }

  findReservation(id: string) {
    return this.db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  cancelReservation(id: string, by: 'guest' | 'restaurant', now: number) {
    return this.db
      .updateTable('reservations')
      .set({ status: 'canceled', canceled_by: by, canceled_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
  }
}

const withLapse = (rows: Array<Booking & { business_id: string; expires_at: number | null }>) =>
  rows.map((r) => ({ id: r.id, business_id: r.business_id, table_id: r.table_id, start_at: r.start_at, end_at: r.end_at, expires_at: r.expires_at ?? Infinity }));
