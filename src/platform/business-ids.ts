import { apiError } from './errors.js';
import { isRecord } from './values.js';

/** Longest business id or alias accepted anywhere (ids are 22 characters; aliases are slugs). */
export const MAX_BUSINESS_ID_LENGTH = 200;

/**
 * A body's list of business ids, checked the same way on every interface: a list of 1 to `max`
 * non-empty strings (docs/contract/subscriptions.md §9: more than the maximum → 413 with the original's wording).
 * Duplicates are dropped, order kept.
 */
export function parseBusinessIdList(body: unknown, field: string, max: number): string[] {
  const ids = isRecord(body) ? body[field] : undefined;
  if (
    !Array.isArray(ids) ||
    !ids.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= MAX_BUSINESS_ID_LENGTH)
  ) {
    throw apiError('VALIDATION_ERROR', `${field} must be a list of business ids`, { field });
  }
  if (ids.length === 0) throw apiError('VALIDATION_ERROR', `${field} must hold at least one business id`, { field });
  if (ids.length > max) throw apiError('PAYLOAD_TOO_LARGE', `The number of businesses in the request exceeded the maximum (${max})`);
  return [...new Set(ids)];
}

/** A path parameter's comma-separated business ids: 1 to `max` of them, duplicates dropped, order kept. */
export function parseBusinessIdParam(value: string | undefined, field: string, max: number): string[] {
  const ids = [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length === 0 || ids.some((id) => id.length > MAX_BUSINESS_ID_LENGTH))
    throw apiError('VALIDATION_ERROR', `${field} must list business ids, comma-separated`, { field });
  if (ids.length > max) throw apiError('VALIDATION_ERROR', `At most ${max} business ids`, { field });
  return ids;
}

/** "a, b, c, …": the first few of a list, for an error description. */
export function firstFew(values: readonly string[], n = 10): string {
  return `${values.slice(0, n).join(', ')}${values.length > n ? ', …' : ''}`;
}
