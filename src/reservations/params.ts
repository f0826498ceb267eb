import { apiError, type ErrorCode } from '../platform/errors.js';
import type { ReservationSettings } from './inventory.js';
import { parseDate, parseTime } from '../platform/local-time.js';

import { single } from '../platform/query.js';
import { isRecord } from '../platform/values.js';

export { single };

/**
 * Parses the date, time and covers shared by search, openings, holds and reservations with the
 * spec's codes: bad formats → DATE_TIME_VALIDATION_ERROR, covers below 1 or above 10 →
 * TOO_SMALL/TOO_LARGE_VALIDATION_ERROR ("Number too small: 0"). `badRequest` is the code for a
 * missing or non-numeric value (VALIDATION_ERROR on reads, INVALID_RESERVATION_PARAMETER on writes).
 */
export function parseDateTimeCovers(
  source: Record<string, unknown>,
  names: { date: string; time: string; covers: string },
  badRequest: ErrorCode,
): { date: string; minutes: number; time: string; covers: number } {
  const rawDate = single(source[names.date]);
  const rawTime = single(source[names.time]);
  const rawCovers = single(source[names.covers]);
  if (rawDate === undefined) throw apiError(badRequest, `Missing parameter: ${names.date}`, { field: names.date });
  if (rawTime === undefined) throw apiError(badRequest, `Missing parameter: ${names.time}`, { field: names.time });
  if (rawCovers === undefined || rawCovers.trim() === '')
    throw apiError(badRequest, `Missing parameter: ${names.covers}`, { field: names.covers });
  const date = parseDate(rawDate);
  if (!date) {
    throw apiError('DATE_TIME_VALIDATION_ERROR', 'Invalid format, expected format is %Y-%m-%d', { field: names.date, instance: rawDate });
  }
  const minutes = parseTime(rawTime);
  if (minutes === undefined) {
    throw apiError('DATE_TIME_VALIDATION_ERROR', 'Invalid format, expected format is %H:%M', { field: names.time, instance: rawTime });
  }
  const covers = parseCovers(rawCovers, names.covers, badRequest);
  return { date, minutes, time: rawTime, covers };
}

/** A number as a person or a client library writes one: `12`, `-3`, `2.5`, `1e309`. */
const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * Covers from 1 to 10. Any number outside the range is too small or too big, however it is
 * written (`1e309`, twenty digits); only what is no number, or a fraction within the range,
 * is `badRequest`.
 */
export function parseCovers(raw: string, field: string, badRequest: ErrorCode): number {
  const text = raw.trim();
  const n = Number(text);
  if (!NUMBER_TEXT.test(text) || Number.isNaN(n))
    throw apiError(badRequest, `${field} must be a whole number, got "${raw}"`, { field, instance: raw });
  const instance = Number.isSafeInteger(n) ? n : text;
  if (n < 1) throw apiError('TOO_SMALL_VALIDATION_ERROR', `Number too small: ${instance}`, { field, instance });
  if (n > 10) throw apiError('TOO_LARGE_VALIDATION_ERROR', `Number too big: ${instance}`, { field, instance });
  if (!Number.isInteger(n)) throw apiError(badRequest, `${field} must be a whole number, got "${raw}"`, { field, instance: raw });
  return n;
}

export function parseBoolean(raw: string | undefined, field: string, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1)$/i.test(raw)) return true;
  if (/^(false|0)$/i.test(raw)) return false;
  throw apiError('VALIDATION_ERROR', `${field} must be true or false, got "${raw}"`, { field, instance: raw });
}

/** Holds and reservations take a form body only; query parameters are refused (docs/contract/reservations.md §3.1). */
export function requireFormBody(query: unknown, body: unknown, contentType: string | undefined): Record<string, unknown> {
  if (query && typeof query === 'object' && Object.keys(query).length > 0) {
    throw apiError(
      'INVALID_RESERVATION_PARAMETER',
      'Query parameters are not accepted; send the parameters as form data (application/x-www-form-urlencoded).',
    );
  }
  if (body === undefined) return {};
  if (!contentType?.startsWith('application/x-www-form-urlencoded') || !isRecord(body)) {
    throw apiError('INVALID_RESERVATION_PARAMETER', 'Send the parameters as form data (application/x-www-form-urlencoded).');
  }
  return body;
}

const HOLD_ID = /^[A-Za-z0-9]{22}$/;
const RESERVATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A reservation id as pbs makes them (a time-ordered UUID): anything else is no reservation. */
export const isReservationId = (id: string) => RESERVATION_ID.test(id);

export interface OpeningsQuery {
  day0: string;
  minutes: number;
  covers: number;
  withRange: boolean;
}

export function parseOpeningsQuery(query: Record<string, unknown>): OpeningsQuery {
  const { date: day0, minutes, covers } = parseDateTimeCovers(query, { date: 'date', time: 'time', covers: 'covers' }, 'VALIDATION_ERROR');
  return { day0, minutes, covers, withRange: parseBoolean(single(query.get_covers_range), 'get_covers_range', false) };
}

/** A reservation's own fields (docs/contract/reservations.md §3.3): the guest, the hold and the notes, each capped. */
export function reservationForm(form: Record<string, unknown>) {
  const guest = {
    first_name: requiredText(form, 'first_name', 100),
    last_name: requiredText(form, 'last_name', 100),
    phone: requiredText(form, 'phone', 32),
    email: requiredText(form, 'email', 254),
    unique_id: requiredText(form, 'unique_id', 300),
  };
  if (!/^[^@\s]+@[^@\s]+$/.test(guest.email))
    throw apiError('INVALID_RESERVATION_PARAMETER', `Invalid email: ${guest.email}`, { field: 'email' });
  if (!isPhoneNumber(guest.phone)) {
    throw apiError('INVALID_RESERVATION_PARAMETER', `phone must be a phone number such as +14155550123 (E.164), got "${guest.phone}"`, {
      field: 'phone',
    });
  }
  const holdId = requiredText(form, 'hold_id', 100);
  const notes = single(form.notes) ?? null;
  if (notes !== null && notes.length > 1000)
    throw apiError('INVALID_RESERVATION_PARAMETER', 'notes is longer than 1000 characters', { field: 'notes' });
  if (!HOLD_ID.test(holdId)) throw apiError('INVALID_HOLD_ID', `Hold id is not valid: ${holdId}`, { field: 'hold_id' });
  return { guest, holdId, notes };
}

/**
 * E.164 (`+14155550123`), or a national number written with spaces, dots, dashes or brackets:
 * 7 to 15 digits, nothing around them. Leading blanks are refused on purpose: a `+` sent
 * unencoded in a form arrives as a space, and " 14155550123" was once stored as given.
 */
export function isPhoneNumber(value: string): boolean {
  if (!/^\+?[0-9(][0-9 ().-]*[0-9]$/.test(value)) return false;
  const digits = value.replace(/[^0-9]/g, '').length;
  return digits >= 7 && digits <= 15;
}

/** A form field that must be present and not blank, at most `max` characters. */
export function requiredText(form: Record<string, unknown>, field: string, max: number): string {
  const value = single(form[field]);
  if (value === undefined || value.trim() === '') throw apiError('INVALID_RESERVATION_PARAMETER', `Missing parameter: ${field}`, { field });
  if (value.length > max) throw apiError('INVALID_RESERVATION_PARAMETER', `${field} is longer than ${max} characters`, { field });
  return value;
}

/** The message of INVALID_DATE_TIME_RANGE for a slot problem (availability.ts `slotProblem`). */
export function dateTimeProblem(problem: string, date: string, time: string, settings: ReservationSettings): string {
  switch (problem) {
    case 'past':
      return `${date} ${time} is in the past`;
    case 'too_soon':
      return `${date} ${time} is less than ${settings.min_notice_minutes} minutes from now`;
    case 'too_far':
      return `${date} is beyond the restaurant's ${settings.max_future_days} maximum future days`;
    case 'closed':
      return `The restaurant is closed on ${date}`;
    case 'off_grid':
      return `Reservations start every 15 minutes; ${time} is not one of them`;
    default:
      return `The restaurant does not seat guests at ${time} on ${date}`;
  }
}
