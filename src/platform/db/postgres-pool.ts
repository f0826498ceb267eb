import type { PostgresPool } from 'kysely';
import type pg from 'pg';
import { DatabaseUnavailableError, type DatabaseAvailability } from './availability.js';
import { preparedOnPostgres } from './raw.js';

export interface WatchedPool {
  /** What Kysely is given: the pool, refusing at once while the database is known to be down. */
  pool: PostgresPool;
  close(): void;
}

/**
 * The `pg` pool as pbs uses it, made to live through the database going away (docs/security.md
 * "When the database goes away"):
 * - every client has an `error` listener for as long as it lives. The pool listens only while a
 *   client is idle: a server that ended a connection between two statements of a transaction
 *   (a restart, a failover) raised an `error` event nobody heard, and the process exited;
 * - failures of connections and statements are reported to `availability`, which probes;
 * - a statement unanswered for `stallAfterMs` has the server probed (a server that accepts
 *   connections and then says nothing): once the probe fails too, the connections waiting that
 *   long are closed, so their requests answer 503 instead of waiting on;
 * - while the database is down, asking for a connection fails at once (no request waits for a
 *   connection timeout per attempt).
 * It also sends the hot-path statements as named prepared statements (`RawStatement`).
 */
export function watchPostgresPool(pool: pg.Pool, availability: DatabaseAvailability, options: { stallAfterMs: number }): WatchedPool {
  /** Clients with a statement under way, and when it was sent (wall ms). */
  const running = new Map<pg.PoolClient, number>();
  // An idle client whose connection ends: the pool drops it; the process must not notice otherwise.
  pool.on('error', (error) => availability.report(error));
  pool.on('connect', (client) => {
    client.on('error', (error) => availability.report(error));
    watchQueries(client, running, availability);
  });
  const stopWaiting = availability.onChange((state) => {
    if (state !== 'down') return;
    // Statements waiting longer than a stall are ended: ending a client with a statement under
    // way destroys its socket, the statement fails now, and the pool discards the client when it
    // is released. Younger ones may yet be answered (a probe can fail on a busy machine).
    const now = Date.now();
    for (const [client, sentAt] of running) {
      if (now - sentAt <= options.stallAfterMs) continue;
      running.delete(client);
      void client.end().catch(() => {});
    }
  });
  const watchdog = setInterval(
    () => {
      const now = Date.now();
      for (const sentAt of running.values()) {
        if (now - sentAt <= options.stallAfterMs) continue;
        availability.report(new DatabaseUnavailableError(`a statement has had no answer for ${Math.round((now - sentAt) / 1000)} s`));
        return;
      }
    },
    Math.min(1000, options.stallAfterMs),
  );
  watchdog.unref();
  return {
    pool: {
      async connect() {
        availability.assertUsable();
        try {
          return await pool.connect();
        } catch (error) {
          availability.report(error);
          throw error;
        }
      },
      end: () => pool.end(),
    },
    close() {
      clearInterval(watchdog);
      stopWaiting();
    },
  };
}

/**
 * Wraps `client.query` to note each statement under way (for the watchdog above) and report its
 * failure, and to send texts registered by RawStatement as named prepared statements: Kysely
 * passes plain text, so the name is added here.
 */
function watchQueries(client: pg.PoolClient, running: Map<pg.PoolClient, number>, availability: DatabaseAvailability): void {
  // Casts: pg's `query` has a dozen overloads; the wrapper forwards whatever it is called with,
  // so it is typed as the loosest function and put back in its place.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const settled = () => running.delete(client);
  const failed = (error: unknown) => {
    running.delete(client);
    availability.report(error);
  };
  // Cast: the wrapper put back in the place of pg's overloaded `query` (above).
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof config === 'string' ? preparedOnPostgres.get(config) : undefined;
    const result = name && Array.isArray(values) ? query({ name, text: config, values }, callback) : query(config, values, callback);
    if (result instanceof Promise) {
      running.set(client, Date.now());
      result.then(settled, failed);
    }
    return result;
  };
}
