import type { BusinessDirectory } from '../businesses/business-service.js';
import type { BusinessRef } from '../businesses/business-store.js';
import type { Catalog } from '../catalog/catalog.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { newId, timeOrderedUuid } from '../platform/ids.js';
import { addDays, localDay } from '../platform/local-time.js';
import { bookableRange, dayContext, heldSlotRefusal, slotProblem, type SlotContext } from './availability.js';
import { creditCardRequired, turnMinutes, type ReservationSettings } from './inventory.js';
import { BOOKINGS_TOPIC, type OccupancyIndex } from './occupancy.js';
import { OpeningsJson } from './openings-json.js';
import {
  dateTimeProblem,
  isReservationId,
  parseCovers,
  parseDateTimeCovers,
  parseOpeningsQuery,
  requiredText,
  reservationForm,
  single,
  type OpeningsQuery,
} from './params.js';
import { reservationCanceled, reservationCreated, type CancelSource } from './reservation-events.js';
import { ReservationLinks } from './reservation-links.js';
import { holdUsable } from './reservation-statements.js';
import { ReservationStore } from './reservation-store.js';
import type { ReservationRow } from './reservation-tables.js';
import { fittingTables, restaurantOf, type Restaurant } from './restaurants.js';

export const HOLD_MINUTES = 5;
/** The same guest cannot book the same restaurant within 3 hours of another booking (docs/contract/reservations.md §3.1). */
const DUPLICATE_WINDOW_MS = 3 * 3600_000;

export interface ReservationOptions {
  publicUrl: string;
  /** Openings returns slots within ± this many minutes of the asked time. */
  openingsWindowMinutes: number;
  /** Called when an optimistic booking lost and runs again under the restaurant's lock. */
  onLockedRetry?: () => void;
  /** Called after a change that wrote events committed (wakes the relay). */
  onEventsCommitted?: () => void;
}

/** Assembles openings bodies (one at a time: rendering is synchronous). */
const openingsJson = new OpeningsJson();

/** The rules of reservations: openings, holds, reservations, status and cancellation. */
export class ReservationService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly catalog: Catalog,
    private readonly occupancy: OccupancyIndex,
    private readonly feed: ChangeFeed,
    private readonly businesses: BusinessDirectory,
    private readonly options: ReservationOptions,
  ) {
    this.links = new ReservationLinks(options.publicUrl);
  }

  private readonly links: ReservationLinks;

  private get db() {
    return this.database.db;
  }

  private store(db: DbOrTx = this.db) {
    return new ReservationStore(db, this.database.dialect);
  }

  // ---- partner side --------------------------------------------------------------------------

  /**
   * Openings as JSON bytes: a day's slots are computed once per restaurant, date and party size
   * and reused by every request until its bookings change (the hottest read of the interface),
   * and the body is assembled from prepared fragments (`OpeningsJson`). The body comes back at once
   * when the catalogue and the occupancy index are current (nearly always), and as a promise
   * only when one of them must be brought up to date first.
   */
  openings(businessIdOrAlias: string, query: Record<string, unknown>): Buffer | Promise<Buffer> {
    const asked = parseOpeningsQuery(query);
    const entry = this.catalog.findFresh(businessIdOrAlias);
    if (entry && this.occupancy.synced()) return this.renderOpenings(restaurantOf(entry, businessIdOrAlias), asked);
    return this.restaurant(businessIdOrAlias).then(async (r) => {
      await this.occupancy.sync();
      return this.renderOpenings(r, asked);
    });
  }

  private renderOpenings(r: Restaurant, { day0, minutes, covers, withRange }: OpeningsQuery): Buffer {
    const now = this.clock.now();
    const w = this.options.openingsWindowMinutes;
    const body = openingsJson.begin();
    for (let shift = -1; shift <= 2; shift++) {
      const date = addDays(day0, shift);
      const day = dayContext(now, r.business.timezone, date);
      const slots = this.occupancy.day(r.inventory, day, covers);
      const [first, end] = bookableRange(day, r.settings, minutes - w, minutes + w);
      body.day(date, slots, first, end, slots.creditCardRequired ? (q) => this.links.cardSlotJson(r.business, date, q, covers) : undefined);
    }
    return body.end(withRange ? r.settings.party_size : undefined);
  }

  /** `write`: the request; its Idempotency-Key is answered in the hold's own write. */
  async hold(partnerId: string, businessIdOrAlias: string, form: Record<string, unknown>, write?: PartnerWrite) {
    const { date, minutes, time, covers } = parseDateTimeCovers(
      form,
      { date: 'date', time: 'time', covers: 'covers' },
      'INVALID_RESERVATION_PARAMETER',
    );
    const uniqueId = requiredText(form, 'unique_id', 300);
    const r = await this.restaurant(businessIdOrAlias);
    const { min, max } = r.settings.party_size;
    if (covers < min || covers > max) {
      throw apiError('COVERS_VALUE_OUT_OF_RANGE', `This restaurant only accepts online reservations between ${min} and ${max} people`);
    }
    const ctx = this.slotContext(r);
    const problem = slotProblem(ctx, date, minutes);
    if (problem) throw apiError('INVALID_DATE_TIME_RANGE', dateTimeProblem(problem, date, time, r.settings));
    const startAt = localDay(date, r.business.timezone)(minutes);
    const base = {
      cancellation_policy: r.settings.cancellation.policy,
      is_editable: r.settings.is_editable,
      last_cancellation_date: (startAt - r.settings.cancellation.cutoff_minutes * 60_000) / 1000,
      notes: r.settings.notes,
    };
    if (creditCardRequired(r.settings, date, covers)) {
      // No hold is placed: the guest must book on the reserve page with a card.
      return {
        ...base,
        hold_id: null,
        expires_at: (ctx.now + HOLD_MINUTES * 60_000) / 1000,
        credit_card_hold: true,
        reserve_url: this.links.reserve(r.business, date, time, covers),
      };
    }
    const endAt = startAt + turnMinutes(r.settings, covers) * 60_000;
    const id = newId();
    const now = ctx.now;
    const expiresAt = now + HOLD_MINUTES * 60_000;
    const answer = {
      ...base,
      hold_id: id,
      expires_at: expiresAt / 1000,
      credit_card_hold: false,
      reserve_url: `${this.links.checkout(r.business, date, time, covers)}?hold_id=${id}`,
    };
    const { released, tableId } = await this.book(
      r.businessId,
      (store, notice) =>
        store.placeHold(
          {
            id,
            business_id: r.businessId,
            partner_id: partnerId,
            unique_id: uniqueId,
            date,
            time,
            covers,
            start_at: startAt,
            end_at: endAt,
            expires_at: expiresAt,
            created_at: now,
          },
          fittingTables(r, covers),
          notice,
          { write, body: answer },
        ),
      (outcome) => {
        if (outcome.tableId === undefined) throw apiError('HOLD_SLOT_NOT_AVAILABLE', `${date} ${time} is not available for ${covers}`);
      },
    );
    this.occupancy.apply(r.businessId, {
      remove: released,
      add: [{ id, table_id: tableId!, start_at: startAt, end_at: endAt, expires_at: expiresAt }],
    });
    return answer;
  }

  /** `write`: the request; its id names the booking's event and its Idempotency-Key is answered in the booking's own write. */
  async reserve(partnerId: string, businessIdOrAlias: string, form: Record<string, unknown>, write?: PartnerWrite) {
    const { date, minutes, time, covers } = parseDateTimeCovers(
      form,
      { date: 'date', time: 'time', covers: 'covers' },
      'INVALID_RESERVATION_PARAMETER',
    );
    if (minutes % 15 !== 0) throw apiError('INVALID_RESERVATION_PARAMETER', `Minutes must be 0, 15, 30 or 45: ${time}`, { field: 'time' });
    const { guest, holdId, notes } = reservationForm(form);

    const r = await this.restaurant(businessIdOrAlias);
    const ctx = this.slotContext(r);
    const { min, max } = r.settings.party_size;
    if (covers < min || covers > max) {
      throw apiError('INVALID_RESERVATION_PARAMETER', `Party size must be between ${min} and ${max}`, { field: 'covers' });
    }
    const problem = slotProblem(ctx, date, minutes);
    if (problem === 'past') throw apiError('INVALID_RESERVATION_PARAMETER', `The date is in the past: ${date} ${time}`);
    if (problem === 'too_far') {
      throw apiError(
        'INVALID_RESERVATION_PARAMETER',
        `The date is beyond the restaurant's ${r.settings.max_future_days} maximum future days`,
      );
    }

    const startAt = localDay(date, r.business.timezone)(minutes);
    const refusal = heldSlotRefusal(ctx, date, minutes, covers, HOLD_MINUTES * 60_000);
    const id = timeOrderedUuid();
    const now = this.clock.now();
    const request = { business_id: r.businessId, partner_id: partnerId, date, time, covers, unique_id: guest.unique_id };
    const answer = { reservation_id: id, confirmation_url: this.links.confirmation(r.business, id), notes: r.settings.notes };
    const { hold, tableId } = await this.book(
      r.businessId,
      (store, notice) =>
        store.reserve({
          ...request,
          hold_id: holdId,
          now,
          duplicateWindow: [startAt - DUPLICATE_WINDOW_MS, startAt + DUPLICATE_WINDOW_MS],
          settingsRefuse: refusal !== undefined,
          candidates: fittingTables(r, covers),
          reservation: { id, first_name: guest.first_name, last_name: guest.last_name, phone: guest.phone, email: guest.email, notes },
          event: { ...reservationCreated({ id, ...request }, now), requestId: write?.requestId },
          notice,
          answer: { write, body: answer },
        }),
      ({ hold, duplicates, tableId }) => {
        if (
          !hold ||
          hold.status !== 'active' ||
          hold.business_id !== r.businessId ||
          hold.partner_id !== partnerId ||
          hold.expires_at <= now
        ) {
          throw apiError('HOLD_NOT_FOUND', `No valid hold ${holdId}: it never existed or has expired`);
        }
        if (!holdUsable(hold, request, now)) {
          throw apiError('RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS', `The hold is for ${hold.date} ${hold.time}, ${hold.covers} covers`);
        }
        if (refusal) throw refusal;
        if (duplicates > 0) throw apiError('DUPLICATE_RESERVATION');
        if (tableId === undefined) throw apiError('RESERVATION_SLOT_NO_LONGER_AVAILABLE');
      },
    );
    this.options.onEventsCommitted?.();
    this.occupancy.apply(r.businessId, {
      remove: [hold!.id],
      add: [{ id, table_id: tableId!, start_at: hold!.start_at, end_at: hold!.end_at, expires_at: Infinity }],
    });
    return answer;
  }

  async status(partnerId: string, reservationId: string, query: Record<string, unknown>) {
    const covers = single(query.covers);
    if (covers !== undefined) parseCovers(covers, 'covers', 'VALIDATION_ERROR');
    const row = await this.ownReservation(partnerId, reservationId, 400);
    if (row.status === 'canceled') throw apiError('RESERVATION_CANCELED');
    return { active: row.end_at > this.clock.now(), date: row.date, time: `${row.time}:00`, covers: row.covers };
  }

  async cancel(partnerId: string, reservationId: string, write?: PartnerWrite): Promise<Record<string, never>> {
    const row = await this.ownReservation(partnerId, reservationId, 404);
    await this.cancelRow(row, 'PARTNER_API', write);
    return {};
  }

  /** The restaurant (operator) cancels; no cutoff applies. */
  async cancelByRestaurant(reservationId: string): Promise<ReservationRow> {
    const row = isReservationId(reservationId) ? await this.store().findReservation(reservationId) : undefined;
    if (!row) throw apiError('NOT_FOUND', `Reservation not found: ${reservationId}`);
    await this.cancelRow(row, 'RESTAURANT');
    return (await this.store().findReservation(reservationId))!;
  }

  /** The end user cancels from the confirmation page (the id in the URL is the capability). */
  async cancelFromConfirmationPage(reservationId: string): Promise<void> {
    const row = isReservationId(reservationId) ? await this.store().findReservation(reservationId) : undefined;
    if (!row) throw apiError('NOT_FOUND');
    await this.cancelRow(row, 'CONFIRMATION_PAGE');
  }

  async findForPage(
    reservationId: string,
  ): Promise<{ reservation: ReservationRow; business: BusinessRef; settings: ReservationSettings } | undefined> {
    if (!isReservationId(reservationId)) return undefined;
    const reservation = await this.store().findReservation(reservationId);
    if (!reservation) return undefined;
    const r = await this.restaurant(reservation.business_id, { requireReservable: false });
    return { reservation, business: r.business, settings: r.settings };
  }

  async restaurantForPage(alias: string) {
    return this.restaurant(alias, { requireReservable: false }).catch(() => undefined);
  }

  // ---- helpers -------------------------------------------------------------------------------

  private async cancelRow(row: ReservationRow, source: CancelSource, write?: PartnerWrite) {
    const by = source === 'RESTAURANT' ? 'restaurant' : 'guest';
    if (row.status === 'canceled') throw apiError('RESERVATION_ALREADY_CANCELED');
    const r = await this.restaurant(row.business_id, { requireReservable: false });
    const now = this.clock.now();
    if (by === 'guest') {
      if (now >= row.start_at) throw apiError('RESERVATION_CANCEL_CONFLICT', 'The reservation has already started');
      if (now > row.start_at - r.settings.cancellation.cutoff_minutes * 60_000) {
        throw apiError(
          'RESERVATION_CANCEL_CONFLICT',
          `Cancellation is only possible up to ${r.settings.cancellation.cutoff_minutes} minutes before the reservation`,
        );
      }
    }
    await this.database.transact(async (trx) => {
      const result = await this.store(trx).cancelReservation(row.id, by, now);
      if (Number(result.numUpdatedRows) === 0) throw apiError('RESERVATION_ALREADY_CANCELED');
      await answerWithinChange(trx, write, 200, {});
      await this.feed.publish(trx, BOOKINGS_TOPIC, row.business_id);
      const event = reservationCanceled(row, source, now);
      if (event) await recordEvent(trx, this.database.dialect, { ...event, requestId: write?.requestId });
    });
    this.options.onEventsCommitted?.();
    this.occupancy.apply(row.business_id, { remove: [row.id] });
  }

  /**
   * Runs a booking of one restaurant. `run` reads what the booking depends on, writes it if the
   * rules allow, and answers with what it read and whether it wrote (`won`); `refuse` throws the
   * partner's error for an answer the rules refuse. On PostgreSQL `run` is first tried outside a
   * transaction (one statement, see the store); when another booking of the restaurant came
   * between its read and its write it wrote nothing, and runs again holding the restaurant's
   * lock, where it cannot lose. SQLite runs it in a transaction, where it cannot lose either.
   */
  private async book<T extends { won: boolean }>(
    businessId: string,
    run: (store: ReservationStore, notice: string) => Promise<T>,
    refuse: (outcome: T) => void,
  ): Promise<T> {
    const notice = this.bookingNotice(businessId);
    if (this.database.dialect === 'postgres') {
      const outcome = await run(this.store(), notice);
      try {
        refuse(outcome);
      } catch (error) {
        // The statement's conditions and `refuse` disagree: a bug; say so rather than answer the error.
        if (outcome.won) throw new Error(`a booking of ${businessId} was written although the rules refuse it`, { cause: error });
        throw error;
      }
      if (outcome.won) return outcome;
      this.options.onLockedRetry?.();
    }
    return this.database.transact(async (trx) => {
      const store = this.store(trx);
      await store.lockBookings(businessId);
      const outcome = await run(store, notice);
      refuse(outcome);
      if (!outcome.won) throw new Error(`a booking of ${businessId} lost under the restaurant's lock`);
      return outcome;
    });
  }

  /** Another partner's reservation answers exactly like an unknown id. */
  private async ownReservation(partnerId: string, reservationId: string, status: 400 | 404): Promise<ReservationRow> {
    const row = isReservationId(reservationId) ? await this.store().findReservation(reservationId) : undefined;
    if (!row || row.partner_id !== partnerId)
      throw apiError('INVALID_RESERVATION_ID', `Reservation id is not valid: ${reservationId}`, { status });
    return row;
  }

  /** The restaurant and its inventory, from the in-memory catalogue. */
  private async restaurant(idOrAlias: string, options: { requireReservable?: boolean } = {}): Promise<Restaurant> {
    return restaurantOf(await this.catalog.find(idOrAlias), idOrAlias, options);
  }

  private bookingNotice(businessId: string): string {
    return this.feed.payload(BOOKINGS_TOPIC, businessId);
  }

  private slotContext(r: Restaurant): SlotContext {
    return { settings: r.settings, timezone: r.business.timezone, now: this.clock.now() };
  }
}
