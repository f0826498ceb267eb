import { localMinute } from '../platform/local-time.js';
import type { BusinessHours } from './business-record.js';

const WEEK_MINUTES = 7 * 24 * 60;

/**
 * A business's regular hours (the first `hours` entry) as [start, end) minute-of-week pairs,
 * Monday 00:00 = 0. An overnight interval (or one whose end is not after its start) runs into
 * the next day, past the week's end for Sunday's; `isOpenDuring` wraps it back.
 */
export function weeklyIntervals(hours: readonly BusinessHours[]): Int32Array {
  const open = hours[0]?.open ?? [];
  const out = new Int32Array(open.length * 2);
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2));
  open.forEach((o, i) => {
    const start = o.day * 1440 + minutes(o.start);
    let end = o.day * 1440 + minutes(o.end);
    if (o.is_overnight || end <= start) end += 1440;
    out[2 * i] = start;
    out[2 * i + 1] = end;
  });
  return out;
}

/** Whether the weekly intervals include the instant `ms` in `timeZone`. */
export function isOpenDuring(intervals: Int32Array, timeZone: string, ms: number): boolean {
  return intervals.length > 0 && includesMinute(intervals, minuteOfWeek(ms, timeZone));
}

/** The minute of the week (Monday 00:00 = 0) at the instant `ms` in `timeZone`. */
export function minuteOfWeek(ms: number, timeZone: string): number {
  const { minutes, weekday } = localMinute(ms, timeZone);
  return weekday * 1440 + minutes;
}

/** Whether the weekly intervals include the minute of the week `m`. */
export function includesMinute(intervals: Int32Array, m: number): boolean {
  for (let i = 0; i < intervals.length; i += 2) {
    const start = intervals[i];
    const end = intervals[i + 1];
    if ((m >= start && m < end) || (m + WEEK_MINUTES >= start && m + WEEK_MINUTES < end)) return true;
  }
  return false;
}

/** Whether the business's regular hours include the instant `ms` (overnight intervals included). */
export function isOpenAt(business: { hours: readonly BusinessHours[]; timezone: string }, ms: number): boolean {
  return isOpenDuring(weeklyIntervals(business.hours), business.timezone, ms);
}
