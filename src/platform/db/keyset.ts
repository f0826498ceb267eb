import { sql, type SqlBool } from 'kysely';

/** A query that takes a raw condition: Kysely's select builders. */
interface Filterable<Q> {
  where(condition: ReturnType<typeof sql<SqlBool>>): Q;
}

/**
 * Keyset paging over an index on (`sequence`, `id`): the rows after `cursor` (the last row of the
 * previous page), else the rows whose sequence is past `after`. With a cursor the row value is
 * the only lower bound: beside a `sequence > after` SQLite walks the index on the sequence alone
 * and tests the row value row by row, so a page deep into one import (all its rows share a
 * sequence number) cost as much as every page before it, and loading a country's catalogue grew
 * with the square of its size. A cursor's sequence is past `after` already.
 */
export function keysetAfter<Q extends Filterable<Q>>(
  query: Q,
  columns: { sequence: string; id: string },
  after: number,
  cursor: { seq: number; id: string } | undefined,
): Q {
  const sequence = sql.ref(columns.sequence);
  return cursor
    ? query.where(sql<SqlBool>`(${sequence}, ${sql.ref(columns.id)}) > (${cursor.seq}, ${cursor.id})`)
    : query.where(sql<SqlBool>`${sequence} > ${after}`);
}

/**
 * Keyset paging downwards over an index on (`sequence`, `id`), for newest-first lists: the rows
 * before `cursor` (the last row of the previous page), compared as a row value so that the index
 * alone finds them.
 */
export function keysetBefore<Q extends Filterable<Q>>(
  query: Q,
  columns: { sequence: string; id: string },
  cursor: { seq: number; id: string },
): Q {
  return query.where(sql<SqlBool>`(${sql.ref(columns.sequence)}, ${sql.ref(columns.id)}) < (${cursor.seq}, ${cursor.id})`);
}
