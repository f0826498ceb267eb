import type { Selectable } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
import { changeLogInsertWhen } from '../platform/change-feed.js';
import { ChangeWithEvent, eventInsertWhen, eventParameters, type DomainEvent } from '../platform/events.js';
import { newId } from '../platform/ids.js';
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

export interface BookingVersionsTable {
  business_id: string;
  version: number;
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
    booking_versions: BookingVersionsTable;
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

/**
 * A counter per restaurant that every booking change bumps in its own statement. A writer that
 * read the bookings and the counter from one snapshot may write only while the counter is still
 * what it read: nothing it decided on has changed (optimistic booking, PostgreSQL). The row
 * lock its bump takes also serialises the locked path.
 */
export const bookingVersionsMigration: PbsMigration = {
  name: '0102_booking_versions',
  async up(db) {
    await db.schema
      .createTable('booking_versions')
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
  },
};

export interface HoldSnapshot {
  version: number;
  /** The guest's live holds at the restaurant. */
  mine: string[];
  occupied: Occupied[];
}

export interface ReservationSnapshot {
  version: number;
  hold: Omit<HoldRow, 'created_at'> | undefined;
  occupied: Occupied[];
  duplicates: number;
}

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
const LIVE_BOOKINGS = `select id, business_id, table_id, start_at, end_at, expires_at from holds
     where status = 'active' and start_at > ? and end_at > ? and expires_at > ?{AND}
   union all
   select id, business_id, table_id, start_at, end_at, null from reservations
     where status = 'active' and start_at > ? and end_at > ?{AND}`;
const LIVE_BOOKINGS_ALL = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(LIVE_BOOKINGS.replaceAll('{AND}', ''));
const LIVE_BOOKINGS_OF = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(LIVE_BOOKINGS.replaceAll('{AND}', ' and business_id = ?'));

const HOLD_COLUMNS = 'id, business_id, partner_id, table_id, unique_id, date, time, covers, start_at, end_at, expires_at, status, created_at';
const RESERVATION_COLUMNS = `id, business_id, partner_id, table_id, hold_id, unique_id, date, time, covers, start_at, end_at,
     first_name, last_name, phone, email, notes, status, canceled_by, created_at, canceled_at`;
const placeholders = (columns: string) => columns.split(',').map(() => '?').join(', ');

// Each snapshot is one statement, so everything in it comes from one snapshot of the database,
// the restaurant's booking version included. Nulls are cast where a UNION could not type them.

/** For a new hold: the tables taken around the slot by others, the guest's live holds here (released by the new one), and the version. */
const HOLD_SNAPSHOT = new RawStatement<{ kind: 'occupied' | 'mine' | 'version'; id: string | null; table_id: string; start_at: number; end_at: number; version: number | null }>(
  `select 'occupied' as kind, cast(null as text) as id, table_id, start_at, end_at, cast(null as bigint) as version from holds
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ? and expires_at > ? and unique_id <> ?
   union all
   select 'occupied', null, table_id, start_at, end_at, null from reservations
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ?
   union all
   select 'mine', id, null, null, null, null from holds where business_id = ? and unique_id = ? and status = 'active'
   union all
   select 'version', null, null, null, null, version from booking_versions where business_id = ?`,
);

type ReservationSnapshotRow = Omit<HoldRow, 'created_at'> & { kind: 'hold' | 'occupied' | 'duplicate' | 'version'; version: number | null };
/** For a reservation: the hold, the tables others take around its slot, the guest's reservations near it, and the version. */
const RESERVATION_SNAPSHOT = new RawStatement<ReservationSnapshotRow>(
  `with h as (select * from holds where id = ?)
   select 'hold' as kind, id, business_id, partner_id, table_id, unique_id, date, time, covers, start_at, end_at, expires_at, status,
     cast(null as bigint) as version from h
   union all
   select 'occupied', null, null, null, o.table_id, null, null, null, null, o.start_at, o.end_at, null, null, null from holds o, h
     where o.business_id = ? and o.status = 'active' and o.start_at > h.start_at - ${EARLIEST_OVERLAP_MS} and o.start_at < h.end_at
       and o.end_at > h.start_at and o.expires_at > ? and o.id <> h.id
   union all
   select 'occupied', null, null, null, o.table_id, null, null, null, null, o.start_at, o.end_at, null, null, null from reservations o, h
     where o.business_id = ? and o.status = 'active' and o.start_at > h.start_at - ${EARLIEST_OVERLAP_MS} and o.start_at < h.end_at
       and o.end_at > h.start_at
   union all
   select 'duplicate', null, null, null, null, null, null, null, null, null, null, null, null, null from reservations
     where business_id = ? and unique_id = ? and status = 'active' and start_at > ? and start_at < ?
   union all
   select 'version', null, null, null, null, null, null, null, null, null, null, null, null, version from booking_versions where business_id = ?`,
);

// SQLite's writes: its transactions run one at a time, so what a snapshot read is still true.
const INSERT_HOLD = new RawStatement(`insert into holds (${HOLD_COLUMNS}) values (${placeholders(HOLD_COLUMNS)})`);
const RELEASE_GUEST_HOLDS = new RawStatement(`update holds set status = 'released' where business_id = ? and unique_id = ? and status = 'active'`);
const CONSUME_HOLD = new RawStatement(`update holds set status = 'consumed' where id = ? and status = 'active'`);
const INSERT_RESERVATION = new ChangeWithEvent(`insert into reservations (${RESERVATION_COLUMNS}) values (${placeholders(RESERVATION_COLUMNS)})`);

// PostgreSQL's writes: one statement each, that changes anything only while the restaurant's
// booking version is the one its snapshot read (parameters: business id, version), and bumps it.
// ON CONFLICT DO UPDATE locks and judges the newest committed row, even one newer than the snapshot.
const BUMP_IF_UNCHANGED = `insert into booking_versions (business_id, version) values (?, 1)
     on conflict (business_id) do update set version = booking_versions.version + 1 where booking_versions.version = ?
     returning version`;
const PLACE_HOLD_IF_UNCHANGED = new RawStatement<{ won: number }>(
  `with bumped as (${BUMP_IF_UNCHANGED}),
   released as (
     update holds set status = 'released' where business_id = ? and unique_id = ? and status = 'active' and exists (select 1 from bumped)
   ),
   placed as (insert into holds (${HOLD_COLUMNS}) select ${placeholders(HOLD_COLUMNS)} where exists (select 1 from bumped)),
   notice as (${changeLogInsertWhen('exists (select 1 from bumped)')})
   select count(*) as won from bumped`,
);
const RESERVE_IF_UNCHANGED = new RawStatement<{ won: number }>(
  `with bumped as (${BUMP_IF_UNCHANGED}),
   consumed as (update holds set status = 'consumed' where id = ? and status = 'active' and exists (select 1 from bumped) returning id),
   booked as (insert into reservations (${RESERVATION_COLUMNS}) select ${placeholders(RESERVATION_COLUMNS)} where exists (select 1 from consumed)),
   event as (${eventInsertWhen('exists (select 1 from consumed)')}),
   notice as (${changeLogInsertWhen('exists (select 1 from consumed)')})
   select count(*) as won from consumed`,
);
/**
 * PostgreSQL's locked path: takes the restaurant's version row lock until commit (creating the
 * row if need be) without changing it; the snapshot read after it then sees every booking.
 */
const LOCK_BOOKINGS = new RawStatement(
  `insert into booking_versions (business_id, version) values (?, 0)
   on conflict (business_id) do update set version = booking_versions.version`,
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
   * PostgreSQL: serialises bookings of one restaurant across connections and processes until the
   * transaction ends, for when an optimistic write lost (see `placeHold`). SQLite transactions
   * are serialised already.
   */
  async lockBookings(businessId: string): Promise<void> {
    if (this.dialect === 'postgres') await LOCK_BOOKINGS.run(this.db, this.dialect, [businessId]);
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

  /**
   * What a new hold for `uniqueId` between two instants depends on, from one snapshot: the
   * tables others take then, the guest's live holds here (the new hold releases them) and the
   * restaurant's booking version.
   */
  async holdSnapshot(businessId: string, uniqueId: string, from: number, to: number, now: number): Promise<HoldSnapshot> {
    const earliest = from - EARLIEST_OVERLAP_MS;
    const rows = await HOLD_SNAPSHOT.rows(this.db, this.dialect, [
      businessId, earliest, to, from, now, uniqueId,
      businessId, earliest, to, from,
      businessId, uniqueId,
      businessId,
    ]);
    const snapshot: HoldSnapshot = { version: 0, mine: [], occupied: [] };
    for (const r of rows) {
      if (r.kind === 'occupied') snapshot.occupied.push({ table_id: r.table_id, start_at: r.start_at, end_at: r.end_at });
      else if (r.kind === 'mine') snapshot.mine.push(r.id!);
      else snapshot.version = r.version!;
    }
    return snapshot;
  }

  /**
   * Places `hold` and releases the guest's other live holds here, with `notice` for other
   * processes; on PostgreSQL only if the booking version is still `version`. False when it was
   * not (someone booked meanwhile): nothing was written.
   */
  async placeHold(version: number, hold: HoldRow, notice: string): Promise<boolean> {
    const values = [
      hold.id, hold.business_id, hold.partner_id, hold.table_id, hold.unique_id, hold.date, hold.time, hold.covers,
      hold.start_at, hold.end_at, hold.expires_at, hold.status, hold.created_at,
    ];
    if (this.dialect !== 'postgres') {
      await RELEASE_GUEST_HOLDS.run(this.db, this.dialect, [hold.business_id, hold.unique_id]);
      await INSERT_HOLD.run(this.db, this.dialect, values);
      return true;
    }
    const [{ won }] = await PLACE_HOLD_IF_UNCHANGED.rows(this.db, this.dialect, [
      hold.business_id, version, hold.business_id, hold.unique_id, ...values, notice,
    ]);
    return won > 0;
  }

  /**
   * What a reservation made with a hold depends on, from one snapshot: the hold (if any), the
   * tables others take in its slot, how many of the guest's active reservations here start in
   * (dupFrom, dupTo), and the restaurant's booking version.
   */
  async reservationSnapshot(businessId: string, holdId: string, uniqueId: string, now: number, dupFrom: number, dupTo: number): Promise<ReservationSnapshot> {
    const rows = await RESERVATION_SNAPSHOT.rows(this.db, this.dialect, [
      holdId, businessId, now, businessId, businessId, uniqueId, dupFrom, dupTo, businessId,
    ]);
    const snapshot: ReservationSnapshot = { version: 0, hold: undefined, occupied: [], duplicates: 0 };
    for (const { kind, version, ...r } of rows) {
      if (kind === 'hold') snapshot.hold = r;
      else if (kind === 'occupied') snapshot.occupied.push({ table_id: r.table_id, start_at: r.start_at, end_at: r.end_at });
      else if (kind === 'duplicate') snapshot.duplicates++;
      else snapshot.version = version!;
    }
    return snapshot;
  }

  /**
   * Consumes hold `holdId` and inserts the reservation and `event`, with `notice` for other
   * processes; on PostgreSQL only if the booking version is still `version`. False when it was
   * not: nothing was written.
   */
  async reserve(version: number, holdId: string, r: ReservationRow, event: DomainEvent, notice: string): Promise<boolean> {
    const values = [
      r.id, r.business_id, r.partner_id, r.table_id, r.hold_id, r.unique_id, r.date, r.time, r.covers, r.start_at, r.end_at,
      r.first_name, r.last_name, r.phone, r.email, r.notes, r.status, r.canceled_by, r.created_at, r.canceled_at,
    ];
    if (this.dialect !== 'postgres') {
      if ((await CONSUME_HOLD.run(this.db, this.dialect, [holdId])) !== 1) return false;
      await INSERT_RESERVATION.run(this.db, this.dialect, values, event);
      return true;
    }
    const [{ won }] = await RESERVE_IF_UNCHANGED.rows(this.db, this.dialect, [
      r.business_id, version, holdId, ...values, ...eventParameters(newId(), event), notice,
    ]);
    return won > 0;
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
