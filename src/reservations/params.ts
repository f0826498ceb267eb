import { apiError, type ErrorCode } from '../platform/errors.js';
import { parseDate, parseTime } from '../platform/local-time.js';

import { single } from '../platform/query.js';

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
  if (rawCovers === undefined || rawCovers.trim() === '') throw apiError(badRequest, `Missing parameter: ${names.covers}`, { field: names.covers });
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
  if (!NUMBER_TEXT.test(text) || Number.isNaN(n)) throw apiError(badRequest, `${field} must be a whole number, got "${raw}"`, { field, instance: raw });
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

/** Holds and reservations take a form body only; query parameters are refused (facts.md §3.1). */
export function requireFormBody(query: unknown, body: unknown, contentType: string | undefined): Record<string, unknown> {
  if (query && typeof query === 'object' && Object.keys(query).length > 0) {
    throw apiError('INVALID_RESERVATION_PARAMETER', 'Query parameters are not accepted; send the parameters as form data (application/x-www-form-urlencoded).');
  }
  if (body === undefined) return {};
  if (!contentType?.startsWith('application/x-www-form-urlencoded') || typeof body !== 'object' || body === null) {
    throw apiError('INVALID_RESERVATION_PARAMETER', 'Send the parameters as form data (application/x-www-form-urlencoded).');
  }
  return body as Record<string, unknown>;
}
