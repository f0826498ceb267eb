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
