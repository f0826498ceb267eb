import { apiError, type ApiError } from '../platform/errors.js';
import { daysBetween, formatHHMM, localDate, localDay, parseTime, weekday } from '../platform/local-time.js';
import { creditCardRequired, SLOT_MINUTES, turnMinutes, type ReservationSettings } from './inventory.js';
import type { InventoryTable } from './inventory-tables.js';
import type { Booking, Occupied } from './reservation-store.js';
import { BoundedMap } from '../platform/bounded-map.js';

/** Why a date and time cannot be booked at all, whatever the tables. */
export type SlotProblem = 'past' | 'too_soon' | 'too_far' | 'closed' | 'outside_hours' | 'off_grid';

export interface SlotContext {
  settings: ReservationSettings;
  timezone: string;
  now: number;
}

/** The date-independent parts of a restaurant's settings, prepared once per settings. */
interface Compiled {
  /** Seating windows [first, last] in minutes, by weekday (0 = Monday). */
  windows: Array<Array<[number, number]>>;
  /** The slots inside the seating windows, by weekday, as DaySlots words (see `isOpen`). */
  windowSlots: Array<[number, number, number]>;
  closed: Set<string>;
}

/**
 * Keyed by the parts they come from, not by the settings: the catalogue shares equal hours and
 * closed dates between restaurants (internSettings), and so shares their compiled form.
 */
const compiledHours = new WeakMap<object, Pick<Compiled, 'windows' | 'windowSlots'>>();
const closedSets = new WeakMap<object, Set<string>>();
/** By hours, then closed dates: the combined form, so a lookup allocates nothing. */
const compiledSettings = new WeakMap<object, WeakMap<object, Compiled>>();

function compile(settings: ReservationSettings): Compiled {
  const byClosed = compiledSettings.get(settings.service_hours);
  const hit = byClosed?.get(settings.closed_dates);
  if (hit) return hit;
  let hours = compiledHours.get(settings.service_hours);
  if (!hours) {
    const windows: Compiled['windows'] = [[], [], [], [], [], [], []];
    for (const w of settings.service_hours) windows[w.day].push([parseTime(w.start)!, parseTime(w.last_seating)!]);
    const windowSlots = windows.map((list) => {
      const words: [number, number, number] = [0, 0, 0];
      for (let q = 0; q < DAY_SLOTS; q++) if (inWindows(list, q * SLOT_MINUTES)) words[q >> 5] |= 1 << (q & 31);
      return words;
    });
    hours = { windows, windowSlots };
    compiledHours.set(settings.service_hours, hours);
  }
  let closed = closedSets.get(settings.closed_dates);
  if (!closed) closedSets.set(settings.closed_dates, (closed = new Set(settings.closed_dates)));
  const compiled = { windows: hours.windows, windowSlots: hours.windowSlots, closed };
  if (byClosed) byClosed.set(settings.closed_dates, compiled);
  else compiledSettings.set(settings.service_hours, new WeakMap([[settings.closed_dates, compiled]]));
  return compiled;
}

const weekdays = new BoundedMap<string, number>(10_000);
const memoWeekday = (date: string) => {
  let d = weekdays.get(date);
  if (d === undefined) {
    d = weekday(date);
    weekdays.set(date, d);
  }
  return d;
};

const spans = new BoundedMap<string, number>(10_000);
const memoDaysBetween = (a: string, b: string) => {
  const key = `${a}|${b}`;
  let n = spans.get(key);
  if (n === undefined) {
    n = daysBetween(a, b);
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

const inWindows = (windows: Array<[number, number]>, minutes: number) =>
  windows.some(([first, last]) => first <= minutes && minutes <= last);

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
 * What the restaurant's present settings say against booking a held slot, in one place: card
 * rules (CREDIT_CARD_REQUIRED), and a calendar that no longer has the slot — a closed date, hours
 * or notice changed since the hold — RESERVATION_SLOT_NO_LONGER_AVAILABLE (spec: "slot still
 * free"). Notice is judged as of the earliest moment a live hold (`holdMs` long) can have been
 * placed, so a hold placed under unchanged settings never lapses by the minutes it waited. Party
 * range and maximum future days have codes of their own and are checked before; tables, by the
 * booking statement.
 */
export function heldSlotRefusal(ctx: SlotContext, date: string, minutes: number, covers: number, holdMs: number): ApiError | undefined {
  if (creditCardRequired(ctx.settings, date, covers)) return apiError('CREDIT_CARD_REQUIRED');
  const problem = slotProblem({ ...ctx, now: ctx.now - holdMs }, date, minutes);
  if (problem === 'closed' || problem === 'outside_hours' || problem === 'too_soon' || problem === 'off_grid') {
    const what = problem === 'closed' ? 'calendar closed that date' : problem === 'too_soon' ? 'notice changed' : 'hours changed';
    return apiError(
      'RESERVATION_SLOT_NO_LONGER_AVAILABLE',
      `${date} ${formatHHMM(minutes)} is no longer offered: the restaurant's ${what} after the hold.`,
    );
  }
  return undefined;
}

/**
 * The table a party would get at [startAt, endAt): the smallest fitting table that is free,
 * so large tables stay available for large parties.
 */
export function freeTable(
  tables: InventoryTable[],
  occupied: Occupied[],
  covers: number,
  startAt: number,
  endAt: number,
): InventoryTable | undefined {
  for (const table of tables) {
    if (covers < table.min_party || covers > table.max_party) continue;
    const taken = occupied.some((o) => o.table_id === table.id && o.start_at < endAt && o.end_at > startAt);
    if (!taken) return table;
  }
  return undefined;
}

/** What every restaurant in one time zone shares about a local date, computed once per request. */
export interface DayContext {
  date: string;
  /** `date` as days since 1970-01-01: a cheap key for remembered days. */
  dayNumber: number;
  weekday: number;
  /** Days from the zone's today to `date`. */
  ahead: number;
  toUtc: (minutes: number) => number;
  now: number;
}

interface ZoneDay {
  date: string;
  dayNumber: number;
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
  if (!days) zoneDays.set(timeZone, (days = new BoundedMap(5_000)));
  let d = days.get(date);
  if (!d) {
    d = {
      date,
      dayNumber: daysBetween('1970-01-01', date),
      weekday: memoWeekday(date),
      toUtc: localDay(date, timeZone),
      today: '',
      ahead: 0,
    };
    days.set(date, d);
  }
  const today = localDate(now, timeZone);
  if (d.today !== today) {
    d.today = today;
    d.ahead = daysBetween(today, date);
  }
  return { date: d.date, dayNumber: d.dayNumber, weekday: d.weekday, ahead: d.ahead, toUtc: d.toUtc, now };
}

/** Slots in a day: slot q starts at minute q × SLOT_MINUTES. */
export const DAY_SLOTS = (24 * 60) / SLOT_MINUTES;

/**
 * The open start times of one local day for a party, before the notice period and any window.
 * Thousands of these are remembered and read at random, so they are kept small: a bitmap over
 * the day's 96 slots in three 32-bit words (slot q is bit q % 32 of word q >> 5; see `isOpen`).
 */
export interface DaySlots {
  open0: number;
  open1: number;
  open2: number;
  /** Whether a card is needed decides per day and party size, so it is the same for every slot. */
  creditCardRequired: boolean;
  /** The instant they were computed at, and the instant a counted hold lapses: valid in between. */
  computedAt: number;
  validUntil: number;
}

/** The bitmap part of DaySlots. */
export type OpenSlots = Pick<DaySlots, 'open0' | 'open1' | 'open2'>;

/** Whether slot `q` (0 ≤ q < DAY_SLOTS) is open. */
export function isOpen(slots: OpenSlots, q: number): boolean {
  const word = q < 32 ? slots.open0 : q < 64 ? slots.open1 : slots.open2;
  return ((word >>> (q & 31)) & 1) === 1;
}

/**
 * Every start time of `day` at which a table fitting the party is free for the whole turn,
 * counting reservations and the holds live at `now`. `bookings` are sorted by start time. The
 * restaurant's fixed rules (party range, closed dates, hours) apply here too; the rules that move
 * with time (booking horizon, notice period) do not (see `bookableRange`), so the result stays
 * valid as time passes.
 */
export function daySlots(
  day: DayContext,
  settings: ReservationSettings,
  tables: InventoryTable[],
  bookings: Booking[],
  covers: number,
  now: number,
): DaySlots {
  const slots: DaySlots = { open0: 0, open1: 0, open2: 0, creditCardRequired: false, computedAt: now, validUntil: Infinity };
  if (!settings.accepts_reservations || covers < settings.party_size.min || covers > settings.party_size.max) return slots;
  const compiled = compile(settings);
  if (compiled.closed.has(day.date)) return slots;
  const windows = compiled.windows[day.weekday];
  if (windows.length === 0) return slots;
  const turn = turnMinutes(settings, covers) * 60_000;
  slots.creditCardRequired = creditCardRequired(settings, day.date, covers);
  // Only bookings that can overlap a turn starting this day (turns last at most 10 hours).
  const dayStart = day.toUtc(0);
  const dayEnd = day.toUtc(24 * 60) + turn;
  const occupied: Booking[] = [];
  for (let i = firstStartingAfter(bookings, dayStart - 24 * 3600_000); i < bookings.length && bookings[i].start_at < dayEnd; i++) {
    const b = bookings[i];
    if (b.end_at <= dayStart || b.expires_at <= now) continue;
    occupied.push(b);
    if (b.expires_at < slots.validUntil) slots.validUntil = b.expires_at;
  }
  if (occupied.length === 0) {
    // Nothing booked: every slot of the seating windows is open if any table fits the party
    // (most restaurants on most days; a metro's search computes thousands of these).
    if (tables.some((t) => covers >= t.min_party && covers <= t.max_party))
      [slots.open0, slots.open1, slots.open2] = compiled.windowSlots[day.weekday];
    return slots;
  }
  const words = [0, 0, 0];
  for (let q = 0; q < DAY_SLOTS; q++) {
    const m = q * SLOT_MINUTES;
    if (!inWindows(windows, m)) continue;
    const startAt = day.toUtc(m);
    if (freeTable(tables, occupied, covers, startAt, startAt + turn)) words[q >> 5] |= 1 << (q & 31);
  }
  [slots.open0, slots.open1, slots.open2] = words;
  return slots;
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
 * The slots of `day` a guest could book now within [fromMinutes, toMinutes], as slot indices
 * [first, end): inside the booking horizon and past the notice period. The open ones among them
 * are those `isOpen` in the day's slots.
 */
export function bookableRange(day: DayContext, settings: ReservationSettings, fromMinutes: number, toMinutes: number): [number, number] {
  if (day.ahead < 0 || day.ahead > settings.max_future_days) return [0, 0];
  const earliest = Math.max(day.now + 1, day.now + settings.min_notice_minutes * 60_000);
  let first = Math.max(0, Math.ceil(fromMinutes / SLOT_MINUTES));
  const end = Math.min(DAY_SLOTS, Math.floor(toMinutes / SLOT_MINUTES) + 1);
  // Start instants grow with the minute of the day, so the notice period cuts off a prefix.
  while (first < end && day.toUtc(first * SLOT_MINUTES) < earliest) first++;
  return first < end ? [first, end] : [0, 0];
}

/** The start minutes of the open slots a guest can book now within [fromMinutes, toMinutes], at most `limit` of them. */
export function bookableMinutes(
  day: DayContext,
  slots: OpenSlots,
  settings: ReservationSettings,
  fromMinutes: number,
  toMinutes: number,
  limit = DAY_SLOTS,
): number[] {
  const [first, end] = bookableRange(day, settings, fromMinutes, toMinutes);
  const out: number[] = [];
  for (let q = first; q < end && out.length < limit; q++) if (isOpen(slots, q)) out.push(q * SLOT_MINUTES);
  return out;
}
