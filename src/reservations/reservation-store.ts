import { sql, type Selectable } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import { PostgresStatement, RawStatement } from '../platform/db/raw.js';
import { changeLogInsertWhen } from '../platform/change-feed.js';
import { eventInsertWhen, recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, completeIdempotencyWhen, idempotencyParameters, type PendingIdempotency } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import type { ReservationSettings } from './inventory.js';
import type { InventoryTable } from './inventory-tables.js';

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

/** The answer a booking gives when it is written, stored with it for its Idempotency-Key (if any). */
export interface BookingAnswer {
  pending: PendingIdempotency | undefined;
  body: unknown;
}

export interface HoldOutcome {
  /** The table the hold took (or would have taken); undefined when none was free. */
  tableId: string | undefined;
  /** The guest's earlier live holds here, released. */
  released: string[];
  won: boolean;
}

/** What a reservation must match in its hold. */
export interface ReservationRequest {
  business_id: string;
  partner_id: string;
  date: string;
  time: string;
  covers: number;
  unique_id: string;
}

export interface ReserveInput extends ReservationRequest {
  hold_id: string;
  now: number;
  /** The guest's other active reservations starting in this open interval make it a duplicate. */
  duplicateWindow: [number, number];
  /** The restaurant's present settings refuse the held slot (ReservationService.settingsRefusal): nothing is written. */
  settingsRefuse: boolean;
  /** Tables that fit the party, in order of preference. */
  candidates: string[];
  reservation: Pick<ReservationRow, 'id' | 'first_name' | 'last_name' | 'phone' | 'email' | 'notes'>;
  event: DomainEvent;
  notice: string;
  answer: BookingAnswer;
}

export interface ReservationFacts {
  hold: Omit<HoldRow, 'created_at'> | undefined;
  /** The guest's active reservations in the duplicate window. */
  duplicates: number;
  /** The table the reservation took (or would have taken); undefined when none was free. */
  tableId: string | undefined;
  won: boolean;
}

export interface RestaurantModel {
  businessId: string;
  settings: ReservationSettings;
  tables: InventoryTable[];
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

// SQL of restaurant inventory, holds and reservations.

/**
 * Turn times are at most 10 hours (inventory schema), so a booking that starts more than a day
 * before a slot cannot reach into it: `start_at > slot start − this` bounds the index range scan.
 */
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

// SQLite books inside a transaction that runs alone (GroupCommit): it reads what the booking
// depends on, decides and writes, in a few statements without round trips.

/**
 * For a new hold: the tables others take in the slot, and the guest's live holds here (the new
 * hold releases them). A guest is a partner's `unique_id`: two partners' ids never meet.
 */
const HOLD_SNAPSHOT = new RawStatement<{ kind: 'occupied' | 'mine'; id: string; table_id: string }>(
  `select 'occupied' as kind, null as id, table_id from holds
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ? and expires_at > ?
       and not (partner_id = ? and unique_id = ?)
   union all
   select 'occupied', null, table_id from reservations
     where business_id = ? and status = 'active' and start_at > ? and start_at < ? and end_at > ?
   union all
   select 'mine', id, null from holds where business_id = ? and partner_id = ? and unique_id = ? and status = 'active'`,
);
/** For a reservation: the hold, the tables others take in its slot, and the guest's reservations near it. */
const RESERVATION_SNAPSHOT = new RawStatement<Omit<HoldRow, 'created_at'> & { kind: 'hold' | 'occupied' | 'duplicate' }>(
  `with h as (select * from holds where id = ?)
   select 'hold' as kind, id, business_id, partner_id, table_id, unique_id, date, time, covers, start_at, end_at, expires_at, status from h
   union all
   select 'occupied', null, null, null, o.table_id, null, null, null, null, null, null, null, null from holds o, h
     where o.business_id = ? and o.status = 'active' and o.start_at > h.start_at - ${EARLIEST_OVERLAP_MS} and o.start_at < h.end_at
       and o.end_at > h.start_at and o.expires_at > ? and o.id <> h.id
   union all
   select 'occupied', null, null, null, o.table_id, null, null, null, null, null, null, null, null from reservations o, h
     where o.business_id = ? and o.status = 'active' and o.start_at > h.start_at - ${EARLIEST_OVERLAP_MS} and o.start_at < h.end_at
       and o.end_at > h.start_at
   union all
   select 'duplicate', null, null, null, null, null, null, null, null, null, null, null, null from reservations
     where business_id = ? and partner_id = ? and unique_id = ? and status = 'active' and start_at > ? and start_at < ?`,
);
const INSERT_HOLD = new RawStatement(`insert into holds (${HOLD_COLUMNS}) values (${placeholders(HOLD_COLUMNS)})`);
const RELEASE_GUEST_HOLDS = new RawStatement(
  `update holds set status = 'released' where business_id = ? and partner_id = ? and unique_id = ? and status = 'active'`,
);
const CONSUME_HOLD = new RawStatement(`update holds set status = 'consumed' where id = ? and status = 'active'`);
const INSERT_RESERVATION = new RawStatement(`insert into reservations (${RESERVATION_COLUMNS}) values (${placeholders(RESERVATION_COLUMNS)})`);

// PostgreSQL books in one statement, outside a transaction: a round trip is most of a booking's
// cost there. Its reads share the statement's snapshot, and it writes only if the restaurant's
// booking version is still the one that snapshot holds: the guarded UPDATE waits for a concurrent
// booking's lock and then judges the newest row, while `seen` keeps the snapshot's version. So
// when nobody booked in between, what the statement read is still true; when somebody did, it
// writes nothing and the booking runs again under the restaurant's lock (LOCK_BOOKINGS).

/**
 * `chosen`: the first of the candidate tables (`:candidates`, in order; `preferred` first) no
 * other live booking takes in the slot [start, end). SQL expressions give the slot, so a
 * reservation can take it from its hold's row.
 */
const occupiedAndChosen = (slot: { start: string; end: string; preferred: string; otherThan: string }) => `
   occupied as (
     select table_id from holds
       where business_id = :business_id and status = 'active' and start_at > ${slot.start} - ${EARLIEST_OVERLAP_MS} and start_at < ${slot.end}
         and end_at > ${slot.start} and expires_at > :now and ${slot.otherThan}
     union all
     select table_id from reservations
       where business_id = :business_id and status = 'active' and start_at > ${slot.start} - ${EARLIEST_OVERLAP_MS} and start_at < ${slot.end}
         and end_at > ${slot.start}
   ),
   chosen as (
     select c.id from unnest(cast(:candidates as text[])) with ordinality as c(id, n)
     where c.id not in (select table_id from occupied)
     order by c.id = ${slot.preferred} desc, c.n limit 1
   )`;
const BUMP_IF_SEEN = (condition: string) => `
   bumped as (
     update booking_versions set version = version + 1
     where business_id = :business_id and version = (select version from seen) and ${condition}
     returning version
   )`;

type AnswerParams = keyof ReturnType<typeof idempotencyParameters>;
type HoldParams = 'business_id' | 'unique_id' | 'start_at' | 'end_at' | 'now' | 'hold_id' | 'candidates' | 'partner_id' | 'date' | 'time'
  | 'covers' | 'expires_at' | 'notice' | AnswerParams;
const PLACE_HOLD = new PostgresStatement<{ table_id: string | null; won: number; released: string[] }, HoldParams>(
  `with seen as (select version from booking_versions where business_id = :business_id),
   ${occupiedAndChosen({ start: 'cast(:start_at as bigint)', end: 'cast(:end_at as bigint)', preferred: 'null', otherThan: 'not (partner_id = :partner_id and unique_id = :unique_id)' })},
   ${BUMP_IF_SEEN('exists (select 1 from chosen)')},
   released as (
     update holds set status = 'released'
     where business_id = :business_id and partner_id = :partner_id and unique_id = :unique_id and status = 'active' and exists (select 1 from bumped)
     returning id
   ),
   placed as (
     insert into holds (${HOLD_COLUMNS})
     select :hold_id, :business_id, :partner_id, chosen.id, :unique_id, :date, :time, :covers, :start_at, :end_at, :expires_at, 'active', :now
     from chosen where exists (select 1 from bumped)
   ),
   notice as (${changeLogInsertWhen(':notice', 'exists (select 1 from bumped)')}),
   answered as (${completeIdempotencyWhen('exists (select 1 from bumped)')})
   select (select id from chosen) as table_id, (select count(*) from bumped) as won, array(select id from released) as released`,
);

type ReserveParams = Exclude<HoldParams, 'start_at' | 'end_at' | 'expires_at'> | 'reservation_id' | 'settings_refuse' | 'dup_from' | 'dup_to'
  | 'first_name' | 'last_name' | 'phone' | 'email' | 'notes' | 'event_id' | 'event_type' | 'event_payload';
/** The hold's own window is the slot: `start_at`/`end_at` come from the hold row (`h`). */
const RESERVE = new PostgresStatement<Partial<Omit<HoldRow, 'created_at'>> & { duplicates: number; chosen_table: string | null; won: number }, ReserveParams>(
  `with seen as (select version from booking_versions where business_id = :business_id),
   h as (select * from holds where id = :hold_id),
   usable as (
     select 1 from h where status = 'active' and business_id = :business_id and partner_id = :partner_id and expires_at > :now
       and date = :date and time = :time and covers = :covers and unique_id = :unique_id
   ),
   duplicates as (
     select count(*) as n from reservations
     where business_id = :business_id and partner_id = :partner_id and unique_id = :unique_id and status = 'active'
       and start_at > :dup_from and start_at < :dup_to
   ),
   ${occupiedAndChosen({ start: '(select start_at from h)', end: '(select end_at from h)', preferred: '(select table_id from h)', otherThan: 'id <> :hold_id' })},
   ${BUMP_IF_SEEN('exists (select 1 from usable) and :settings_refuse = 0 and (select n from duplicates) = 0 and exists (select 1 from chosen)')},
   consumed as (
     update holds set status = 'consumed' where id = :hold_id and status = 'active' and exists (select 1 from bumped)
     returning id, start_at, end_at
   ),
   booked as (
     insert into reservations (${RESERVATION_COLUMNS})
     select :reservation_id, :business_id, :partner_id, chosen.id, consumed.id, :unique_id, :date, :time, :covers, consumed.start_at, consumed.end_at,
       :first_name, :last_name, :phone, :email, :notes, 'active', null, :now, null
     from consumed, chosen
   ),
   event as (${eventInsertWhen(':event_id, :event_type, :business_id, :partner_id, :event_payload, :now', 'exists (select 1 from consumed)')}),
   notice as (${changeLogInsertWhen(':notice', 'exists (select 1 from consumed)')}),
   answered as (${completeIdempotencyWhen('exists (select 1 from consumed)')})
   select h.id, h.business_id, h.partner_id, h.table_id, h.unique_id, h.date, h.time, h.covers, h.start_at, h.end_at, h.expires_at, h.status,
     (select n from duplicates) as duplicates, (select id from chosen) as chosen_table, (select count(*) from consumed) as won
   from (select 1) as one left join h on true`,
);

/**
 * PostgreSQL's locked path: takes the restaurant's version row lock until commit (creating the
 * row if need be) without changing it; the statement after it then sees every booking.
 */
const LOCK_BOOKINGS = new RawStatement(
  `insert into booking_versions (business_id, version) values (?, 0)
   on conflict (business_id) do update set version = booking_versions.version`,
);

/** True when a hold can be turned into the reservation `expected` describes (PostgreSQL: `usable` in RESERVE). */
export function holdUsable(hold: Omit<HoldRow, 'created_at'> | undefined, expected: ReservationRequest, now: number): boolean {
  return (
    hold !== undefined && hold.status === 'active' && hold.business_id === expected.business_id && hold.partner_id === expected.partner_id &&
    hold.expires_at > now && hold.date === expected.date && hold.time === expected.time && hold.covers === expected.covers &&
    hold.unique_id === expected.unique_id
  );
}

/** The first of `candidates` (the held table first, if it is one) that no booking in `occupied` takes. */
function chooseTable(candidates: readonly string[], occupied: ReadonlyArray<{ table_id: string }>, preferred?: string): string | undefined {
  const taken = new Set(occupied.map((o) => o.table_id));
  if (preferred !== undefined && candidates.includes(preferred) && !taken.has(preferred)) return preferred;
  return candidates.find((id) => !taken.has(id));
}

export class ReservationStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

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
   * Places `hold` on the first of `candidates` (table ids, in order of preference) free for its
   * slot, releasing the guest's other live holds here, with `notice` for other processes and
   * `answer` stored for its Idempotency-Key. No free table: `tableId` undefined, nothing written.
   * On PostgreSQL `won` is false, and nothing was written, also when another booking of the
   * restaurant came between its read and write.
   */
  async placeHold(hold: Omit<HoldRow, 'table_id' | 'status'>, candidates: string[], notice: string, answer: BookingAnswer): Promise<HoldOutcome> {
    if (this.dialect === 'postgres') {
      const [row] = await PLACE_HOLD.rows(this.db, {
        business_id: hold.business_id, unique_id: hold.unique_id, start_at: hold.start_at, end_at: hold.end_at, now: hold.created_at,
        hold_id: hold.id, candidates, partner_id: hold.partner_id, date: hold.date, time: hold.time,
        covers: hold.covers, expires_at: hold.expires_at, notice, ...idempotencyParameters(answer.pending, 200, answer.body),
      });
      return { tableId: row.table_id ?? undefined, released: row.released, won: row.won > 0 };
    }
    const earliest = hold.start_at - EARLIEST_OVERLAP_MS;
    const rows = await HOLD_SNAPSHOT.rows(this.db, this.dialect, [
      hold.business_id, earliest, hold.end_at, hold.start_at, hold.created_at, hold.partner_id, hold.unique_id,
      hold.business_id, earliest, hold.end_at, hold.start_at,
      hold.business_id, hold.partner_id, hold.unique_id,
    ]);
    const tableId = chooseTable(candidates, rows.filter((r) => r.kind === 'occupied'));
    if (tableId === undefined) return { tableId, released: [], won: false };
    await RELEASE_GUEST_HOLDS.run(this.db, this.dialect, [hold.business_id, hold.partner_id, hold.unique_id]);
    await INSERT_HOLD.run(this.db, this.dialect, [
      hold.id, hold.business_id, hold.partner_id, tableId, hold.unique_id, hold.date, hold.time, hold.covers,
      hold.start_at, hold.end_at, hold.expires_at, 'active', hold.created_at,
    ]);
    await answerWithinChange(this.db, answer.pending, 200, answer.body);
    return { tableId, released: rows.filter((r) => r.kind === 'mine').map((r) => r.id), won: true };
  }

  /**
   * Turns a hold into a reservation, with its event and `notice` for other processes, when the
   * hold is usable (`holdUsable`), no card is required, the guest has no active reservation here
   * in the duplicate window, and one of `candidates` is free for the hold's slot (the held table
   * first). Answers with what that depended on, and whether it was written (`won`); on
   * PostgreSQL `won` is also false when another booking of the restaurant came in between.
   */
  async reserve(input: ReserveInput): Promise<ReservationFacts> {
    const { reservation: r } = input;
    if (this.dialect === 'postgres') {
      const [{ duplicates, chosen_table, won, ...hold }] = await RESERVE.rows(this.db, {
        business_id: input.business_id, unique_id: input.unique_id, now: input.now, hold_id: input.hold_id, candidates: input.candidates,
        partner_id: input.partner_id, date: input.date, time: input.time, covers: input.covers, notice: input.notice, reservation_id: r.id,
        settings_refuse: input.settingsRefuse ? 1 : 0, dup_from: input.duplicateWindow[0], dup_to: input.duplicateWindow[1],
        first_name: r.first_name, last_name: r.last_name, phone: r.phone, email: r.email, notes: r.notes,
        event_id: newId(), event_type: input.event.type, event_payload: JSON.stringify(input.event.payload),
        ...idempotencyParameters(input.answer.pending, 200, input.answer.body),
      });
      return { hold: hold.id ? (hold as Omit<HoldRow, 'created_at'>) : undefined, duplicates, tableId: chosen_table ?? undefined, won: won > 0 };
    }
    const rows = await RESERVATION_SNAPSHOT.rows(this.db, this.dialect, [
      input.hold_id, input.business_id, input.now, input.business_id, input.business_id, input.partner_id, input.unique_id, ...input.duplicateWindow,
    ]);
    const facts: ReservationFacts = { hold: undefined, duplicates: 0, tableId: undefined, won: false };
    const occupied: Array<{ table_id: string }> = [];
    for (const { kind, ...row } of rows) {
      if (kind === 'hold') facts.hold = row;
      else if (kind === 'occupied') occupied.push(row);
      else facts.duplicates++;
    }
    facts.tableId = chooseTable(input.candidates, occupied, facts.hold?.table_id);
    const hold = facts.hold;
    if (!holdUsable(hold, input, input.now) || input.settingsRefuse || facts.duplicates > 0 || facts.tableId === undefined) return facts;
    if ((await CONSUME_HOLD.run(this.db, this.dialect, [input.hold_id])) !== 1) return facts;
    await INSERT_RESERVATION.run(this.db, this.dialect, [
      r.id, input.business_id, input.partner_id, facts.tableId, input.hold_id, input.unique_id, input.date, input.time, input.covers,
      hold!.start_at, hold!.end_at, r.first_name, r.last_name, r.phone, r.email, r.notes, 'active', null, input.now, null,
    ]);
    await recordEvent(this.db, this.dialect, input.event);
    await answerWithinChange(this.db, input.answer.pending, 200, input.answer.body);
    facts.won = true;
    return facts;
  }

  findReservation(id: string) {
    return this.db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A restaurant's reservations and live holds of one local date, by time (the operator's day sheet). */
  async daySheet(businessId: string, date: string, now: number) {
    const [reservations, holds] = await Promise.all([
      this.db
        .selectFrom('reservations as r')
        .leftJoin('restaurant_tables as t', 't.id', 'r.table_id')
        .select(['r.id', 'r.partner_id', 'r.time', 'r.covers', 'r.first_name', 'r.last_name', 'r.phone', 'r.email', 'r.notes', 'r.status', 'r.canceled_by', 'r.created_at', 't.name as table_name'])
        .where('r.business_id', '=', businessId)
        .where('r.date', '=', date)
        .orderBy('r.time')
        .orderBy('r.created_at')
        .execute(),
      this.db
        .selectFrom('holds as h')
        .leftJoin('restaurant_tables as t', 't.id', 'h.table_id')
        .select(['h.id', 'h.partner_id', 'h.time', 'h.covers', 'h.unique_id', 'h.expires_at', 'h.created_at', 't.name as table_name'])
        .where('h.business_id', '=', businessId)
        .where('h.date', '=', date)
        .where('h.status', '=', 'active')
        .where('h.expires_at', '>', now)
        .orderBy('h.time')
        .execute(),
    ]);
    return { reservations, holds };
  }

  /** Reservations made per UTC day (by creation) since `since`, and how many of those are canceled. */
  async madePerDay(since: number): Promise<Array<{ day: number; made: number; canceled: number }>> {
    const day = sql<number>`created_at / 86400000`;
    const rows = await this.db
      .selectFrom('reservations')
      .select([day.as('day'), (eb) => eb.fn.countAll<number>().as('made'), sql<number>`sum(case when status = 'canceled' then 1 else 0 end)`.as('canceled')])
      .where('created_at', '>=', since)
      .groupBy(day)
      .execute();
    return rows.map((r) => ({ day: Number(r.day), made: Number(r.made), canceled: Number(r.canceled) }));
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
