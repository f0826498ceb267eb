import type { Db, Tx } from './database.js';

/** Units that share one commit at most; bounds how long other queries wait for the connection. */
const MAX_UNITS_PER_COMMIT = 64;

/**
 * A group takes the main file's write lock as it begins, by an update of this empty table that
 * changes nothing, and waits for it up to `busy_timeout`. Begun plainly (deferred), a group took
 * the lock at its first write, and when another process had committed since its first read,
 * SQLite refused at once (SQLITE_BUSY, its snapshot stale, no wait): racing holds across the
 * processes of a cluster answered INTERNAL_ERROR. Not `begin immediate`: that locks every attached
 * file too, and the request log's writer thread writes the log file (database.ts LOG_SCHEMA).
 * An update of no row writes no page, so other processes' `data_version` stays put.
 */
export const WRITE_LOCK_TABLE = 'write_lock';

/** A prepared SQLite statement, as better-sqlite3 gives it. */
export interface DirectStatement {
  reader: boolean;
  all(parameters: unknown[]): unknown[];
  run(parameters: unknown[]): { changes: number };
}

export type PrepareStatement = (text: string) => DirectStatement;

/**
 * Open group-commit transactions and how to run statements on their connection directly. A
 * group holds SQLite's only connection until it commits (Kysely queues everyone else), so
 * statements issued inside it can skip Kysely's queue and compiler and run at once.
 */
const directTransactions = new WeakMap<object, PrepareStatement>();

/** The direct runner for `db` when it is an open group-commit transaction (SQLite). */
export function directRunner(db: object): PrepareStatement | undefined {
  return directTransactions.get(db);
}

interface Unit {
  work: (trx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Transactions on SQLite's one connection, committed in groups: while one transaction runs,
 * those that arrive queue up, then run one after another inside a single transaction, each in
 * its own savepoint (a failing one rolls back alone), and one commit makes them all durable.
 * A caller hears of success only after that commit. Serial execution is what SQLite does anyway;
 * this pays the commit (WAL write, locks) once per group instead of once per transaction.
 */
export class GroupCommit {
  private readonly queue: Unit[] = [];
  private draining = false;

  /** @param onFailure told of every error a unit or a commit met (the database's availability looks for outages among them). */
  constructor(
    private readonly db: Db,
    private readonly prepare: PrepareStatement,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  run<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Cast: the queue holds work of every result type; each entry's resolve gets its own work's result.
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // Start after the event loop has read every request that is ready: statements run
        // synchronously, so a group started at once would never see another unit join it.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commitGroup();
    } finally {
      this.draining = false;
    }
  }

  private async commitGroup(): Promise<void> {
    const outcomes: Array<{ unit: Unit; ok: boolean; value: unknown }> = [];
    const run = (text: string) => this.prepare(text).run([]);
    let trx;
    try {
      trx = await this.db.startTransaction().execute();
    } catch (error) {
      this.onFailure(error);
      for (const unit of this.queue.splice(0, MAX_UNITS_PER_COMMIT)) unit.reject(error);
      return;
    }
    try {
      run(`update main.${WRITE_LOCK_TABLE} set held = held where 0`);
    } catch (error) {
      this.onFailure(error);
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      for (const unit of this.queue.splice(0, MAX_UNITS_PER_COMMIT)) unit.reject(error);
      return;
    }
    directTransactions.set(trx, this.prepare);
    try {
      while (this.queue.length > 0 && outcomes.length < MAX_UNITS_PER_COMMIT) {
        const unit = this.queue.shift()!;
        run('savepoint unit');
        try {
          const value = await unit.work(trx);
          run('release unit');
          outcomes.push({ unit, ok: true, value });
        } catch (error) {
          this.onFailure(error);
          try {
            run('rollback to unit');
            run('release unit');
          } catch {
            // SQLite rolled the whole transaction back itself (a full disk, an I/O error: its
            // savepoint is gone). The group ends with the unit's own error, which says why.
            outcomes.push({ unit, ok: false, value: error });
            throw error;
          }
          outcomes.push({ unit, ok: false, value: error });
        }
      }
      directTransactions.delete(trx);
      await trx.commit().execute();
    } catch (error) {
      directTransactions.delete(trx);
      this.onFailure(error);
      // The group could not commit: none of its units happened.
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      for (const { unit } of outcomes) unit.reject(error);
      return;
    }
    for (const { unit, ok, value } of outcomes) (ok ? unit.resolve : unit.reject)(value);
  }
}
