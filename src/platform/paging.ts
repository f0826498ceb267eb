import { apiError } from './errors.js';
import { single } from './query.js';

/**
 * Paging of list routes, one way everywhere: `limit` and `offset` as integers with bounds, so no
 * value reaches SQL that the database cannot take (`offset=1e20` was a 500 on PostgreSQL).
 */
export const MAX_OFFSET = 1_000_000;

/** The querystring schema of a paged list (merge extra properties in with `properties`). */
export function pagingQuerySchema(limits: { defaultLimit: number; maxLimit: number }, properties: Record<string, object> = {}) {
  return {
    type: 'object',
    properties: {
      ...properties,
      limit: { type: 'integer', minimum: 1, maximum: limits.maxLimit, default: limits.defaultLimit },
      offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
    },
  } as const;
}

export interface Page {
  limit: number;
  offset: number;
}

/**
 * `limit` and `offset` read from a query by hand, for routes whose schemas leave checks to the
 * service: a bad value is 400 VALIDATION_ERROR in the original's words ("The supplied limit:
 * 100 is invalid.", docs/contract/common.md §1.2).
 */
export function parsePage(query: Record<string, unknown>, limits: { defaultLimit: number; minLimit: number; maxLimit: number }): Page {
  const read = (name: string, fallback: number, min: number, max: number) => {
    const raw = single(query[name]);
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw apiError('VALIDATION_ERROR', `The supplied ${name}: ${raw} is invalid.`, { field: name });
    return n;
  };
  return { limit: read('limit', limits.defaultLimit, limits.minLimit, limits.maxLimit), offset: read('offset', 0, 0, MAX_OFFSET) };
}
