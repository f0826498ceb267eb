/**
 * A value that is ready at once on a hot read (kept in memory) or later (read from the database):
 * the kept case costs no promise. `ReadCache.read` answers one; `afterwards` goes on from it.
 */
export type AtOnceOrLater<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is ready, else once it is. */
export function afterwards<T, R>(value: AtOnceOrLater<T>, next: (ready: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
