import { PostgresStatement, RawStatement } from '../platform/db/raw.js';
import { changeLogInsertWhen } from '../platform/change-feed.js';
import { eventInsertWhen } from '../platform/events.js';
import { completeIdempotencyWhen, type idempotencyParameters } from '../platform/idempotency.js';
import type { Booking, ReservationRequest } from './reservation-store.js';
import type { HoldRow } from './reservation-tables.js';

// The booking path's SQL (holds and reservations), compiled once; reservation-store.ts runs it.

/**
 * Turn times are at most 10 hours (inventory schema), so a booking that starts more than a day
 * before a slot cannot reach into it: `start_at > slot start − this` bounds the index range scan.
 */
export const EARLIEST_OVERLAP_MS = 24 * 3600_000;

// The statements on the booking path, compiled once (see RawStatement).
const LIVE_BOOKINGS = `select id, business_id, table_id, start_at, end_at, expires_at from holds
     where status = 'active' and start_at > ? and end_at > ? and expires_at > ?{AND}
   union all
   select id, business_id, table_id, start_at, end_at, null from reservations
     where status = 'active' and start_at > ? and end_at > ?{AND}`;
export const LIVE_BOOKINGS_ALL = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(
  LIVE_BOOKINGS.replaceAll('{AND}', ''),
);
export const LIVE_BOOKINGS_OF = new RawStatement<Booking & { business_id: string; expires_at: number | null }>(
  LIVE_BOOKINGS.replaceAll('{AND}', ' and business_id = ?'),
);

const HOLD_COLUMNS =
  'id, business_id, partner_id, table_id, unique_id, date, time, covers, start_at, end_at, expires_at, status, created_at';
const RESERVATION_COLUMNS = `id, business_id, partner_id, table_id, hold_id, unique_id, date, time, covers, start_at, end_at,
     first_name, last_name, phone, email, notes, status, canceled_by, created_at, canceled_at`;
const placeholders = (columns: string) =>
  columns
    .split(',')
    .map(() => '?')
    .join(', ');

// SQLite books inside a transaction that runs alone (GroupCommit): it reads what the booking
// depends on, decides and writes, in a few statements without round trips.

/**
 * For a new hold: the tables others take in the slot, and the guest's live holds here (the new
 * hold releases them). A guest is a partner's `unique_id`: two partners' ids never meet.
 */
export const HOLD_SNAPSHOT = new RawStatement<{ kind: 'occupied' | 'mine'; id: string; table_id: string }>(
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
export const RESERVATION_SNAPSHOT = new RawStatement<Omit<HoldRow, 'created_at'> & { kind: 'hold' | 'occupied' | 'duplicate' }>(
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
export const INSERT_HOLD = new RawStatement(`insert into holds (${HOLD_COLUMNS}) values (${placeholders(HOLD_COLUMNS)})`);
export const RELEASE_GUEST_HOLDS = new RawStatement(
  `update holds set status = 'released' where business_id = ? and partner_id = ? and unique_id = ? and status = 'active'`,
);
export const CONSUME_HOLD = new RawStatement(`update holds set status = 'consumed' where id = ? and status = 'active'`);
export const INSERT_RESERVATION = new RawStatement(
  `insert into reservations (${RESERVATION_COLUMNS}) values (${placeholders(RESERVATION_COLUMNS)})`,
);

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
type HoldParams =
  | 'business_id'
  | 'unique_id'
  | 'start_at'
  | 'end_at'
  | 'now'
  | 'hold_id'
  | 'candidates'
  | 'partner_id'
  | 'date'
  | 'time'
  | 'covers'
  | 'expires_at'
  | 'notice'
  | AnswerParams;
export const PLACE_HOLD = new PostgresStatement<{ table_id: string | null; won: number; released: string[] }, HoldParams>(
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

type ReserveParams =
  | Exclude<HoldParams, 'start_at' | 'end_at' | 'expires_at'>
  | 'reservation_id'
  | 'settings_refuse'
  | 'dup_from'
  | 'dup_to'
  | 'first_name'
  | 'last_name'
  | 'phone'
  | 'email'
  | 'notes'
  | 'event_id'
  | 'event_type'
  | 'event_payload'
  | 'event_request_id';
/** The hold's own window is the slot: `start_at`/`end_at` come from the hold row (`h`). */
export const RESERVE = new PostgresStatement<
  Partial<Omit<HoldRow, 'created_at'>> & { duplicates: number; chosen_table: string | null; won: number },
  ReserveParams
>(
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
   event as (${eventInsertWhen(':event_id, :event_type, :business_id, :partner_id, :event_payload, :now, :event_request_id', 'exists (select 1 from consumed)')}),
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
export const LOCK_BOOKINGS = new RawStatement(
  `insert into booking_versions (business_id, version) values (?, 0)
   on conflict (business_id) do update set version = booking_versions.version`,
);

/** True when a hold can be turned into the reservation `expected` describes (PostgreSQL: `usable` in RESERVE). */
export function holdUsable(hold: Omit<HoldRow, 'created_at'> | undefined, expected: ReservationRequest, now: number): boolean {
  return (
    hold !== undefined &&
    hold.status === 'active' &&
    hold.business_id === expected.business_id &&
    hold.partner_id === expected.partner_id &&
    hold.expires_at > now &&
    hold.date === expected.date &&
    hold.time === expected.time &&
    hold.covers === expected.covers &&
    hold.unique_id === expected.unique_id
  );
}

/** The first of `candidates` (the held table first, if it is one) that no booking in `occupied` takes. */
export function chooseTable(
  candidates: readonly string[],
  occupied: ReadonlyArray<{ table_id: string }>,
  preferred?: string,
): string | undefined {
  const taken = new Set(occupied.map((o) => o.table_id));
  if (preferred !== undefined && candidates.includes(preferred) && !taken.has(preferred)) return preferred;
  return candidates.find((id) => !taken.has(id));
}

export const withLapse = (rows: Array<Booking & { business_id: string; expires_at: number | null }>) =>
  rows.map((r) => ({
    id: r.id,
    business_id: r.business_id,
    table_id: r.table_id,
    start_at: r.start_at,
    end_at: r.end_at,
    expires_at: r.expires_at ?? Infinity,
  }));
