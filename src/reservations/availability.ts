import { daysBetween, localDate, localDay, parseTime, weekday } from '../platform/local-time.js';
import { creditCardRequired, SLOT_MINUTES, turnMinutes, type ReservationSettings } from './inventory.js';
import type { Booking, Occupied, TableRow } from './reservation-store.js';

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

interface ZoneDay {
  date: string;
  weekday: number;
  toUtc: (minutes: number) => number;
  /** `ahead` as last computed, valid while the zone's today is `today`. */
  today: string;
  ahead: number;
}

/** By zone, then date: nested maps, as composite string keys cost more to hash than they save. */
const zoneDays = new Map<string, Map<string, ZoneDay>>();

export function dayContext(now: number, timeZone: string, date: string): DayContext {
  let days = zoneDays.get(timeZone);
  if (!days) zoneDays.set(timeZone, (days = new Map()));
  let d = days.get(date);
  if (!d) {
    if (days.size > 5_000) days.clear();
    d = { date, weekday: memoWeekday(date), toUtc: localDay(date, timeZone), today: '', ahead: 0 };
    days.set(date, d);
  }
  const today = localDate(now, timeZone);
  if (d.today !== today) {
    d.today = today;
    d.ahead = daysBetween(today, date);
  }
  return { date: d.date, weekday: d.weekday, ahead: d.ahead, toUtc: d.toUtc, now };
}

/** The open start times of one local day for a party, before the notice period and any window. */
export interface DaySlots {
  slots: OpenSlot[];
  /**
   * The slots as openings JSON objects joined by commas, built on first use, so any window of
   * them is one substring: slot i starts at `offsets[i]`, and `offsets[slots.length]` is one past
   * the end (where a comma would follow).
   */
  openingsJson?: { text: string; offsets: Uint32Array };
  /** The instant they were computed at, and the instant a counted hold lapses: valid in between. */
  computedAt: number;
  validUntil: number;
}

const NO_SLOTS: OpenSlot[] = [];

/**
 * Every start time of `day` at which a table fitting the party is free for the whole turn,
 * counting reservations and the holds live at `now`. `bookings` are sorted by start time. The
 * restaurant's fixed rules (party range, closed dates, hours) apply here too; the rules that move
 * with time (booking horizon, notice period) do not (see `bookableSlots`), so the result stays
 * valid as time passes.
 */
export function daySlots(day: DayContext, settings: ReservationSettings, tables: TableRow[], bookings: Booking[], covers: number, now: number): DaySlots {
  const none = { slots: NO_SLOTS, computedAt: now, validUntil: Infinity };
  if (!settings.accepts_reservations || covers < settings.party_size.min || covers > settings.party_size.max) return none;
  const compiled = compile(settings);
  if (compiled.closed.has(day.date)) return none;
  const windows = compiled.windows[day.weekday];
  if (windows.length === 0) return none;
  const turn = turnMinutes(settings, covers) * 60_000;
  const card = creditCardRequired(settings, day.date, covers);
  // Only bookings that can overlap a turn starting this day (turns last at most 10 hours).
  const dayStart = day.toUtc(0);
  const dayEnd = day.toUtc(24 * 60) + turn;
  const occupied: Booking[] = [];
  let validUntil = Infinity;
  for (let i = firstStartingAfter(bookings, dayStart - 24 * 3600_000); i < bookings.length && bookings[i].start_at < dayEnd; i++) {
    const b = bookings[i];
    if (b.end_at <= dayStart || b.expires_at <= now) continue;
    occupied.push(b);
    if (b.expires_at < validUntil) validUntil = b.expires_at;
  }
  const slots: OpenSlot[] = [];
  for (let m = 0; m <= 24 * 60 - SLOT_MINUTES; m += SLOT_MINUTES) {
    if (!inWindows(windows, m)) continue;
    const startAt = day.toUtc(m);
    if (freeTable(tables, occupied, covers, startAt, startAt + turn)) slots.push({ minutes: m, startAt, creditCardRequired: card });
  }
  return { slots, computedAt: now, validUntil };
}

/** Index of the first booking starting after `instant` (binary search). */
function firstStartingAfter(bookings: Booking[], instant: number): number {
  let lo = 0;
  let hi = bookings.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bookings[mid].start_at <= instant) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The slots of a day a guest can book now, within [fromMinutes, toMinutes]: inside the booking
 * horizon and past the notice period. With `firstOnly`, stops at the first (enough to know a restaurant has an opening).
 */
export function bookableSlots(
  day: DayContext,
  slots: DaySlots,
  settings: ReservationSettings,
  fromMinutes: number,
  toMinutes: number,
  firstOnly = false,
): OpenSlot[] {
  const [start, end] = bookableRange(day, slots, settings, fromMinutes, toMinutes);
  if (start === end) return NO_SLOTS;
  return slots.slots.slice(start, firstOnly ? start + 1 : end);
}

/** The same as `bookableSlots`, as indices [start, end) into `slots.slots` (no copying). */
export function bookableRange(day: DayContext, slots: DaySlots, settings: ReservationSettings, fromMinutes: number, toMinutes: number): [number, number] {
  if (day.ahead < 0 || day.ahead > settings.max_future_days) return [0, 0];
  const now = day.now;
  const earliest = Math.max(now + 1, now + settings.min_notice_minutes * 60_000);
  const list = slots.slots;
  let start = 0;
  let hi = list.length;
  while (start < hi) {
    const mid = (start + hi) >> 1;
    if (list[mid].minutes < fromMinutes) start = mid + 1;
    else hi = mid;
  }
  // Start instants grow with the minute of the day, so the notice period cuts off a prefix.
  while (start < list.length && list[start].minutes <= toMinutes && list[start].startAt < earliest) start++;
  let end = start;
  while (end < list.length && list[end].minutes <= toMinutes) end++;
  return [start, end];
}
