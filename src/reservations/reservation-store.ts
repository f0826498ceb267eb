import { sql } from 'kysely';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, idempotencyParameters, type PartnerWrite } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import type { ReservationSettings } from './inventory.js';
import type { InventoryTable } from './inventory-tables.js';
import {
  CONSUME_HOLD,
  EARLIEST_OVERLAP_MS,
  HOLD_SNAPSHOT,
  INSERT_HOLD,
  INSERT_RESERVATION,
  LIVE_BOOKINGS_ALL,
  LIVE_BOOKINGS_OF,
  LOCK_BOOKINGS,
  PLACE_HOLD,
  RELEASE_GUEST_HOLDS,
  RESERVATION_SNAPSHOT,
  RESERVE,
  chooseTable,
  holdUsable,
  withLapse,
} from './reservation-statements.js';
import type { HoldRow, ReservationRow } from './reservation-tables.js';

/** The answer a booking gives when it is written, stored with it for its Idempotency-Key (if any). */
export interface BookingAnswer {
  write: PartnerWrite | undefined;
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
  async placeHold(
    hold: Omit<HoldRow, 'table_id' | 'status'>,
    candidates: string[],
    notice: string,
    answer: BookingAnswer,
  ): Promise<HoldOutcome> {
    if (this.dialect === 'postgres') {
      const [row] = await PLACE_HOLD.rows(this.db, {
        business_id: hold.business_id,
        unique_id: hold.unique_id,
        start_at: hold.start_at,
        end_at: hold.end_at,
        now: hold.created_at,
        hold_id: hold.id,
        candidates,
        partner_id: hold.partner_id,
        date: hold.date,
        time: hold.time,
        covers: hold.covers,
        expires_at: hold.expires_at,
        notice,
        ...idempotencyParameters(answer.write, 200, answer.body),
      });
      return { tableId: row.table_id ?? undefined, released: row.released, won: row.won > 0 };
    }
    const earliest = hold.start_at - EARLIEST_OVERLAP_MS;
    const rows = await HOLD_SNAPSHOT.rows(this.db, this.dialect, [
      hold.business_id,
      earliest,
      hold.end_at,
      hold.start_at,
      hold.created_at,
      hold.partner_id,
      hold.unique_id,
      hold.business_id,
      earliest,
      hold.end_at,
      hold.start_at,
      hold.business_id,
      hold.partner_id,
      hold.unique_id,
    ]);
    const tableId = chooseTable(
      candidates,
      rows.filter((r) => r.kind === 'occupied'),
    );
    if (tableId === undefined) return { tableId, released: [], won: false };
    await RELEASE_GUEST_HOLDS.run(this.db, this.dialect, [hold.business_id, hold.partner_id, hold.unique_id]);
    await INSERT_HOLD.run(this.db, this.dialect, [
      hold.id,
      hold.business_id,
      hold.partner_id,
      tableId,
      hold.unique_id,
      hold.date,
      hold.time,
      hold.covers,
      hold.start_at,
      hold.end_at,
      hold.expires_at,
      'active',
      hold.created_at,
    ]);
    await answerWithinChange(this.db, answer.write, 200, answer.body);
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
        business_id: input.business_id,
        unique_id: input.unique_id,
        now: input.now,
        hold_id: input.hold_id,
        candidates: input.candidates,
        partner_id: input.partner_id,
        date: input.date,
        time: input.time,
        covers: input.covers,
        notice: input.notice,
        reservation_id: r.id,
        settings_refuse: input.settingsRefuse ? 1 : 0,
        dup_from: input.duplicateWindow[0],
        dup_to: input.duplicateWindow[1],
        first_name: r.first_name,
        last_name: r.last_name,
        phone: r.phone,
        email: r.email,
        notes: r.notes,
        event_id: newId(),
        event_type: input.event.type,
        event_payload: JSON.stringify(input.event.payload),
        event_request_id: input.event.requestId ?? null,
        ...idempotencyParameters(input.answer.write, 200, input.answer.body),
      });
      return {
        // Cast: the hold's columns come from an outer join, null together only when no hold matched (no id).
        hold: hold.id ? (hold as Omit<HoldRow, 'created_at'>) : undefined,
        duplicates,
        tableId: chosen_table ?? undefined,
        won: won > 0,
      };
    }
    const rows = await RESERVATION_SNAPSHOT.rows(this.db, this.dialect, [
      input.hold_id,
      input.business_id,
      input.now,
      input.business_id,
      input.business_id,
      input.partner_id,
      input.unique_id,
      ...input.duplicateWindow,
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
      r.id,
      input.business_id,
      input.partner_id,
      facts.tableId,
      input.hold_id,
      input.unique_id,
      input.date,
      input.time,
      input.covers,
      hold!.start_at,
      hold!.end_at,
      r.first_name,
      r.last_name,
      r.phone,
      r.email,
      r.notes,
      'active',
      null,
      input.now,
      null,
    ]);
    await recordEvent(this.db, this.dialect, input.event);
    await answerWithinChange(this.db, input.answer.write, 200, input.answer.body);
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
        .select([
          'r.id',
          'r.partner_id',
          'r.time',
          'r.covers',
          'r.first_name',
          'r.last_name',
          'r.phone',
          'r.email',
          'r.notes',
          'r.status',
          'r.canceled_by',
          'r.created_at',
          't.name as table_name',
        ])
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
      .select([
        day.as('day'),
        (eb) => eb.fn.countAll<number>().as('made'),
        sql<number>`sum(case when status = 'canceled' then 1 else 0 end)`.as('canceled'),
      ])
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
