/**
 * Coalesces concurrent loads of the same keys (a cache's misses under load): a key already being
 * loaded is awaited, not loaded again, and the others are loaded together in one batch. Without
 * it, every request that arrives while a miss is being filled misses too and queries again; on
 * PostgreSQL those queries queue for the pool and the cache fills ever more slowly.
 */
export class BatchLoader<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  /** The values of `items`, in their order; `loadBatch` answers the values of the items it is given, in their order. */
  async load<T>(items: readonly T[], keyOf: (item: T) => string, loadBatch: (items: T[]) => Promise<V[]>): Promise<V[]> {
    const pending: Array<Promise<V>> = [];
    const fresh: T[] = [];
    const freshKeys: string[] = [];
    const positions: number[] = [];
    items.forEach((item, i) => {
      const key = keyOf(item);
      const loading = this.inFlight.get(key);
      if (loading) pending[i] = loading;
      else {
        fresh.push(item);
        freshKeys.push(key);
        positions.push(i);
      }
    });
    if (fresh.length > 0) {
      const batch = loadBatch(fresh);
      freshKeys.forEach((key, j) => {
        const value = batch.then((values) => values[j]);
        // Rejections reach the callers that await them; this copy only keeps Node from reporting them unhandled.
        value.catch(() => {});
        this.inFlight.set(key, value);
        pending[positions[j]] = value;
      });
      void batch
        .catch(() => {})
        .finally(() => {
          // Only this batch's own loads: a key forgotten meanwhile may be loading again.
          freshKeys.forEach((key, j) => {
            if (this.inFlight.get(key) === pending[positions[j]]) this.inFlight.delete(key);
          });
        });
    }
    return Promise.all(pending);
  }

  /** The value of one key, joining its load when one is under way. */
  async loadOne(key: string, loadKey: (key: string) => Promise<V>): Promise<V> {
    const [value] = await this.load(
      [key],
      (k) => k,
      async ([k]) => [await loadKey(k)],
    );
    return value;
  }

  /**
   * Lets later loads of `key` start afresh rather than join the one under way (whose answer may
   * predate a change just committed); those already waiting on it still get its answer.
   */
  forget(key: string): void {
    this.inFlight.delete(key);
  }
}
