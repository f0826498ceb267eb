/**
 * Local dates and times of a place (restaurant hours, reservation slots) ↔ UTC instants, with
 * IANA time zones and no library: Intl gives the zone's offset at an instant.
 */

import { BoundedMap, BoundedSet } from './bounded-map.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface LocalParts {
  date: string; // YYYY-MM-DD
  minutes: number; // minutes since local midnight
  seconds: number;
}

/** The wall-clock date and time at `ms` in `timeZone`. */
export function localParts(ms: number, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    seconds: Number(parts.second),
  };
}

function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const [y, m, d] = p.date.split('-').map(Number);
  const asUtc = Date.UTC(y, m - 1, d, Math.floor(p.minutes / 60), p.minutes % 60, p.seconds);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The UTC instant of a local date and minute-of-day; in a DST gap, the instant just after it. */
export function localToUtc(date: string, minutes: number, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const naive = Date.UTC(y, m - 1, d, 0, minutes);
  let guess = naive - offsetAt(naive, timeZone);
  guess = naive - offsetAt(guess, timeZone);
  return guess;
}

/** 0 = Monday … 6 = Sunday, the convention of business hours (docs/contract/search.md §2.2). */
export function weekday(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
}

/** By date, then by days: nested maps, so no key string is built per call. */
const shifted = new BoundedMap<string, Map<number, string>>(20_000);

/** `date` moved by whole days; memoised, as request paths shift the same few dates again and again. */
export function addDays(date: string, days: number): string {
  let byDays = shifted.get(date);
  if (byDays === undefined) {
    shifted.set(date, (byDays = new BoundedMap(1_000)));
  }
  let out = byDays.get(days);
  if (out === undefined) {
    const [y, m, d] = date.split('-').map(Number);
    out = new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
    byDays.set(days, out);
  }
  return out;
}

/** Whole days from `a` to `b` (both YYYY-MM-DD). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

const HHMM = Array.from({ length: 24 * 60 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);

export function formatHHMM(minutes: number): string {
  return HHMM[minutes] ?? `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

const validDates = new BoundedSet<string>(50_000);

/**
 * Years a date may name: date arithmetic (the day before, two days after, a booking horizon)
 * must stay within four-digit years, or its `%Y-%m-%d` form breaks (`9999-12-30` + 2 days).
 */
export const YEARS = { first: 1000, last: 9998 } as const;

/** A real calendar date in `%Y-%m-%d` within YEARS, or undefined. */
export function parseDate(value: string): string | undefined {
  if (validDates.has(value)) return value;
  const m = DATE.exec(value);
  if (!m) return undefined;
  if (Number(m[1]) < YEARS.first || Number(m[1]) > YEARS.last) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (d.toISOString().slice(0, 10) !== value) return undefined;
  validDates.add(value);
  return value;
}

/** Minutes since midnight of a `%H:%M` time, or undefined. */
export function parseTime(value: string): number | undefined {
  const m = TIME.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

const dayCache = new BoundedMap<string, (minutes: number) => number>(50_000);

/**
 * `localToUtc` for many minutes of one local date: the zone's offsets are looked up once per
 * (zone, date). When the offset is the same at both ends of the day (no DST change that day)
 * every minute maps by addition; otherwise each minute is converted exactly.
 */
export function localDay(date: string, timeZone: string): (minutes: number) => number {
  const key = `${timeZone}|${date}`;
  let fn = dayCache.get(key);
  if (!fn) {
    const start = localToUtc(date, 0, timeZone);
    const end = localToUtc(date, 24 * 60 - 1, timeZone);
    fn = end - start === (24 * 60 - 1) * 60_000 ? (minutes) => start + minutes * 60_000 : (minutes) => localToUtc(date, minutes, timeZone);
    dayCache.set(key, fn);
  }
  return fn;
}

const minuteCache = new BoundedMap<string, { minute: number; date: string; minutes: number; weekday: number }>(1_000);

/**
 * The local date, minute of day and weekday (0 = Monday) at `ms` in `timeZone`, memoised per
 * zone for the current minute (seconds are dropped): "is it open now" for every result.
 */
export function localMinute(ms: number, timeZone: string): { date: string; minutes: number; weekday: number } {
  const minute = Math.floor(ms / 60_000);
  const hit = minuteCache.get(timeZone);
  if (hit && hit.minute === minute) return hit;
  const parts = localParts(minute * 60_000, timeZone);
  const value = { minute, date: parts.date, minutes: parts.minutes, weekday: weekday(parts.date) };
  minuteCache.set(timeZone, value);
  return value;
}

const todayCache = new Map<string, { minute: number; date: string }>();

/** The local date at `ms` in `timeZone`, memoised per zone and minute (read on every slot check). */
export function localDate(ms: number, timeZone: string): string {
  const minute = Math.floor(ms / 60_000);
  const hit = todayCache.get(timeZone);
  if (hit && hit.minute === minute) return hit.date;
  const date = localParts(ms, timeZone).date;
  todayCache.set(timeZone, { minute, date });
  return date;
}

/** `YYYY-MM-DD HH:MM:SS`, the wall-clock time at `ms` in `timeZone` (the review sample's form). */
export function localDateTime(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  const hh = String(Math.floor(p.minutes / 60)).padStart(2, '0');
  const mm = String(p.minutes % 60).padStart(2, '0');
  return `${p.date} ${hh}:${mm}:${String(p.seconds).padStart(2, '0')}`;
}

/** ISO 8601 with the zone's offset at `ms`, seconds precision: `2031-05-05T09:00:00-07:00`. */
export function localIsoOffset(ms: number, timeZone: string): string {
  const offsetMinutes = Math.round(offsetAt(ms, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${localDateTime(ms, timeZone).replace(' ', 'T')}${offset}`;
}

/** The Monday of the ISO week holding `date` (`YYYY-MM-DD`). */
export function mondayOf(date: string): string {
  return addDays(date, -weekday(date));
}
