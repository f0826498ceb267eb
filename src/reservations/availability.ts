import { addDays, daysBetween, localDate, localDay, localToUtc, parseTime, weekday } from '../platform/local-time.js';
import { creditCardRequired, SLOT_MINUTES, turnMinutes, type ReservationSettings } from './inventory.js';
import type { Occupied, TableRow } from './reservation-store.js';

/** Why a date and time cannot be booked at all, whatever the tables. */
export type SlotProblem = 'past' | 'too_soon' | 'too_far' | 'closed' | 'outside_hours' | 'off_grid';

export interface SlotContext {
  settings: ReservationSettings;
  timezone: string;
  now: number;
}

/** Checks a local date and minute against the restaurant's calendar, hours, horizon and notice. */
export function slotProblem(ctx: SlotContext, date: string, minutes: number): SlotProblem | undefined {
  if (minutes % SLOT_MINUTES !== 0) return 'off_grid';
  const startAt = localDay(date, ctx.timezone)(minutes);
  if (startAt <= ctx.now) return 'past';
  const today = localDate(ctx.now, ctx.timezone);
  if (daysBetween(today, date) > ctx.settings.max_future_days) return 'too_far';
  if (startAt < ctx.now + ctx.settings.min_notice_minutes * 60_000) return 'too_soon';
  if (ctx.settings.closed_dates.includes(date)) return 'closed';
  const day = weekday(date);
  const inHours = ctx.settings.service_hours.some(
    (w) => w.day === day && parseTime(w.start)! <= minutes && minutes <= parseTime(w.last_seating)!,
  );
  return inHours ? undefined : 'outside_hours';
}

/**
 * The table a party would get at [startAt, endAt): the smallest fitting table that is free,
 * so large tables stay available for large parties.
 */
export function freeTable(tables: TableRow[], occupied: Occupied[], covers: number, startAt: number, endAt: number): TableRow | undefined {
  for (const table of tables) {
    if (covers < table.min_party || covers > table.max_party) continue;
    const taken = occupied.some((o) => o.table_id === table.id && o.start_at < endAt && o.end_at > startAt);
    if (!taken) return table;
  }
  return undefined;
}

export interface OpenSlot {
  minutes: number;
  startAt: number;
  creditCardRequired: boolean;
}

/** Bookable start times of one local date for a party, within [fromMinutes, toMinutes]. */
export function openSlots(
  ctx: SlotContext,
  tables: TableRow[],
  occupied: Occupied[],
  date: string,
  covers: number,
  fromMinutes: number,
  toMinutes: number,
): OpenSlot[] {
  const { settings } = ctx;
  if (!settings.accepts_reservations || covers < settings.party_size.min || covers > settings.party_size.max) return [];
  const turn = turnMinutes(settings, covers) * 60_000;
  const card = creditCardRequired(settings, date, covers);
  const out: OpenSlot[] = [];
  const toUtc = localDay(date, ctx.timezone);
  const first = Math.max(0, Math.ceil(fromMinutes / SLOT_MINUTES) * SLOT_MINUTES);
  for (let m = first; m <= Math.min(toMinutes, 24 * 60 - SLOT_MINUTES); m += SLOT_MINUTES) {
    if (slotProblem(ctx, date, m)) continue;
    const startAt = toUtc(m);
    if (freeTable(tables, occupied, covers, startAt, startAt + turn)) out.push({ minutes: m, startAt, creditCardRequired: card });
  }
  return out;
}

/** UTC bounds that cover every booking that could overlap the local dates [first, last]. */
export function windowFor(ctx: SlotContext, first: string, last: string): { from: number; to: number } {
  const longestTurn = Math.max(...ctx.settings.turn_times.map((t) => t.minutes));
  return {
    from: localToUtc(first, 0, ctx.timezone) - longestTurn * 60_000,
    to: localToUtc(addDays(last, 1), 0, ctx.timezone) + longestTurn * 60_000,
  };
}
