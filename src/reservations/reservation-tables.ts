import { sql, type Selectable } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';

/** The booking tables (holds, reservations, the per-restaurant booking version) and their migrations. */

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
    holds: HoldsTable;
    reservations: ReservationsTable;
    booking_versions: BookingVersionsTable;
  }
}

export type HoldRow = Selectable<HoldsTable>;
export type ReservationRow = Selectable<ReservationsTable>;

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
 * A counter per restaurant, bumped by every hold and reservation in the statement that writes it
 * (PostgreSQL). A booking that read the bookings and the counter from one snapshot writes only
 * while the counter is still what it read, so nothing it decided on has changed. Cancellations
 * leave it alone: they only free tables. The row's lock also serialises the locked path.
 */
export const bookingVersionsMigration: PbsMigration = {
  name: '0102_booking_versions',
  async up(db) {
    await db.schema
      .createTable('booking_versions')
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into booking_versions (business_id, version) select business_id, 0 from restaurant_settings`.execute(db);
  },
};

/** The operator's bookings-per-day view counts reservations by creation time. */
export const reservationsCreatedIndexMigration: PbsMigration = {
  name: '0103_reservations_created_at',
  async up(db) {
    await db.schema.createIndex('reservations_created_at').on('reservations').column('created_at').execute();
  },
};
