/**
 * Small typed readers of values whose type TypeScript cannot know: thrown errors, parsed JSON,
 * and JSON that pbs itself stored. They exist so that the rest of `src` narrows instead of casting
 * (docs/family-layout.md, "Types at the edge").
 */

/** True for a plain object: what a parsed JSON body or query object is. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message of anything thrown (an `Error`'s message, otherwise the value as text). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return String(error);
}

/** The `code` of a thrown error (a Node system error's `ECONNREFUSED`, a PostgreSQL SQLSTATE), if it has one. */
export function codeOf(error: unknown): string | undefined {
  return isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
}

/** The `name` of a thrown error, if it has one. */
export function nameOf(error: unknown): string | undefined {
  return isRecord(error) && typeof error.name === 'string' ? error.name : undefined;
}

declare const jsonOf: unique symbol;

/**
 * A text column holding the JSON of a `T` that pbs wrote itself with {@link toJson}. The brand
 * carries the type from the writer to the reader, so reading it back needs no cast at the call.
 */
export type Json<T> = string & { readonly [jsonOf]?: T };

export function toJson<T>(value: T): Json<T> {
  return JSON.stringify(value);
}

/**
 * Reads back what {@link toJson} wrote. The one place the type is asserted: the column's only
 * writer is pbs, through `toJson` with the same `T`, so its text is a `T`'s JSON.
 */
export function fromJson<T>(text: Json<T>): T {
  return JSON.parse(text) as T;
}

/** An object with one entry per key, each computed from its key (the typed `Object.fromEntries`). */
export function recordOf<const K extends string, V>(keys: readonly K[], valueOf: (key: K) => V): Record<K, V> {
  const out: Partial<Record<K, V>> = {};
  for (const key of keys) out[key] = valueOf(key);
  // Every key of `keys` was just set, which `Partial` cannot express.
  return out as Record<K, V>;
}

/** The items in lists by their key, each list in the items' order (the typed `Map.groupBy` of Node 21). */
export function groupedBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
