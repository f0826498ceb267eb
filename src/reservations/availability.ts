import { addDays, daysBetween, localDate, localDay, parseTime, weekday } from '../platform/local-time.js';
import { creditCardRequired, SLOT_MINUTES, turnMinutes, type ReservationSettings } from './inventory.js';
import type { Occupied, TableRow } from './reservation-store.js';

/** Why a date and time cannot be booked at all, whatever the tables. */
export type SlotProblem = 'past' | 'too_soon' | 'too_far' | 'closed' | 'outside_hours' | 'off_grid';

export interface SlotContext {
  settings: ReservationSettings;
  timezone: string;
  now: number;
}

/** The date-independent parts of a restaurant's settings, prepared once per settings object. */
interface Compiled {
  /** Seating windows [first, last] in minutes, by weekday (0 = Monday). */
  windows: Array<Array<[number, number]>>;
  closed: Set<string>;
}

const compiledSettings = new WeakMap<ReservationSettings, Compiled>();

function compile(settings: ReservationSettings): Compiled {
  let c = compiledSettings.get(settings);
  if (!c) {
    const windows: Compiled['windows'] = [[], [], [], [], [], [], []];
    for (const w of settings.service_hours) windows[w.day].push([parseTime(w.start)!, parseTime(w.last_seating)!]);
    c = { windows, closed: new Set(settings.closed_dates) };
    compiledSettings.set(settings, c);
  }
  return c;
}

const weekdays = new Map<string, number>();
const memoWeekday = (date: string) => {
  let d = weekdays.get(date);
  if (d === undefined) {
    d = weekday(date);
    if (weekdays.size > 10_000) weekdays.clear();
    weekdays.set(date, d);
  }
  return d;
};

const spans = new Map<string, number>();
const memoDaysBetween = (a: string, b: string) => {
  const key = `${a}|${b}`;
  let n = spans.get(key);
  if (n === undefined) {
    n = daysBetween(a, b);
    if (spans.size > 10_000) spans.clear();
    spans.set(key, n);
  }
  return n;
};

/** What rules out a whole local date (horizon, closed day), whatever the time. */
function dateProblem(ctx: SlotContext, date: string): SlotProblem | undefined {
  const ahead = memoDaysBetween(localDate(ctx.now, ctx.timezone), date);
  if (ahead < 0) return 'past';
  if (ahead > ctx.settings.max_future_days) return 'too_far';
  if (compile(ctx.settings).closed.has(date)) return 'closed';
  return undefined;
}

const inWindows = (windows: Array<[number, number]>, minutes: number) => windows.some(([first, last]) => first <= minutes && minutes <= last);

/** Checks a local date and minute against the restaurant's calendar, hours, horizon and notice. */
export function slotProblem(ctx: SlotContext, date: string, minutes: number): SlotProblem | undefined {
  if (minutes % SLOT_MINUTES !== 0) return 'off_grid';
  const startAt = localDay(date, ctx.timezone)(minutes);
  if (startAt <= ctx.now) return 'past';
  const problem = dateProblem(ctx, date);
  if (problem) return problem;
  if (startAt < ctx.now + ctx.settings.min_notice_minutes * 60_000) return 'too_soon';
  return inWindows(compile(ctx.settings).windows[memoWeekday(date)], minutes) ? undefined : 'outside_hours';
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

/** What every restaurant in one time zone shares about a local date, computed once per request. */
export interface DayContext {
  date: string;
  weekday: number;
  /** Days from the zone's today to `date`. */
  ahead: number;
  toUtc: (minutes: number) => number;
  now: number;
}

export function dayContext(now: number, timeZone: string, date: string): DayContext {
  return { date, weekday: memoWeekday(date), ahead: memoDaysBetween(localDate(now, timeZone), date), toUtc: localDay(date, timeZone), now };
}

/**
 * Bookable start times of one local date for a party, within [fromMinutes, toMinutes]; with
 * `firstOnly`, stops at the first (enough to know a restaurant has an opening).
 */
export function openSlots(
  ctx: SlotContext,
  tables: TableRow[],
  occupied: Occupied[],
  date: string,
  covers: number,
  fromMinutes: number,
  toMinutes: number,
  firstOnly = false,
): OpenSlot[] {
  return openSlotsOn(dayContext(ctx.now, ctx.timezone, date), ctx.settings, tables, occupied, covers, fromMinutes, toMinutes, firstOnly);
}

export function openSlotsOn(
  day: DayContext,
  settings: ReservationSettings,
  tables: TableRow[],
  occupied: Occupied[],
  covers: number,
  fromMinutes: number,
  toMinutes: number,
  firstOnly = false,
): OpenSlot[] {
  if (!settings.accepts_reservations || covers < settings.party_size.min || covers > settings.party_size.max) return [];
  if (day.ahead < 0 || day.ahead > settings.max_future_days) return [];
  const compiled = compile(settings);
  if (compiled.closed.has(day.date)) return [];
  const windows = compiled.windows[day.weekday];
  if (windows.length === 0) return [];
  const turn = turnMinutes(settings, covers) * 60_000;
  const card = creditCardRequired(settings, day.date, covers);
  const earliest = Math.max(day.now + 1, day.now + settings.min_notice_minutes * 60_000);
  const out: OpenSlot[] = [];
  const first = Math.max(0, Math.ceil(fromMinutes / SLOT_MINUTES) * SLOT_MINUTES);
  for (let m = first; m <= Math.min(toMinutes, 24 * 60 - SLOT_MINUTES); m += SLOT_MINUTES) {
    if (!inWindows(windows, m)) continue;
    const startAt = day.toUtc(m);
    if (startAt < earliest) continue;
    if (freeTable(tables, occupied, covers, startAt, startAt + turn)) {
      out.push({ minutes: m, startAt, creditCardRequired: card });
      if (firstOnly) break;
    }
  }
  return out;
}

/** UTC bounds that cover every booking that could overlap the local dates [first, last]. */
export function windowFor(ctx: SlotContext, first: string, last: string): { from: number; to: number } {
  const longestTurn = Math.max(...ctx.settings.turn_times.map((t) => t.minutes));
  return {
    from: localDay(first, ctx.timezone)(0) - longestTurn * 60_000,
    to: localDay(addDays(last, 1), ctx.timezone)(0) + longestTurn * 60_000,
  };
}
