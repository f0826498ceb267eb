import { sql } from 'kysely';
import type { PbsMigration } from './db/migrate.js';
import { randomBase62 } from './ids.js';
import type { Database, DbOrTx } from './db/database.js';
import { RawStatement } from './db/raw.js';

/** What changed elsewhere: one key of a topic, or everything (when changes may have been missed). */
export type ChangeListener = (key: string | undefined) => void;

/**
 * PostgreSQL: the change log other processes read. Not LISTEN/NOTIFY: a transaction that
 * notifies takes a database-wide lock from its commit until the commit is flushed, so every
 * booking's commit waited for the one before (half the commit rate of plain transactions here).
 * `txid` tells a reader which rows may still be committing; `at` lets old rows be pruned.
 */
export const changeLogMigration: PbsMigration = {
  name: '0005_change_log',
  async up(db, dialect) {
    if (dialect !== 'postgres') return;
    await sql`create table change_log (
      seq bigserial primary key,
      txid bigint not null default (pg_current_xact_id()::text::bigint),
      payload text not null,
      at bigint not null default ((extract(epoch from now()) * 1000)::bigint)
    )`.execute(db);
    await sql`create index change_log_txid on change_log (txid)`.execute(db);
  },
};

const CHANGE_LOG_INSERT = 'insert into change_log (payload) values (?)';
const RECORD = new RawStatement(CHANGE_LOG_INSERT);
/**
 * The statement that records a change (`payload`, an SQL expression) when `condition` holds, for
 * writers that fold it into a statement of their own.
 */
export const changeLogInsertWhen = (payload: string, condition: string) =>
  `insert into change_log (payload) select ${payload} where ${condition}`;
const HORIZON = new RawStatement<{ xmin: number }>('select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin');
/**
 * The rows of every transaction that was not yet finished at the last read, and the new horizon,
 * from one snapshot: a transaction older than the snapshot's xmin has committed or aborted, so
 * its rows, if any, are in this answer.
 */
const READ = new RawStatement<{ xmin: number; seq: number | null; txid: number | null; payload: string | null }>(
  `select s.xmin, c.seq, c.txid, c.payload
   from (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin) s
   left join change_log c on c.txid >= ? and c.at >= (extract(epoch from now()) * 1000)::bigint - ?
   order by c.seq`,
);
const PRUNE = new RawStatement(`delete from change_log where at < (extract(epoch from now()) * 1000)::bigint - ?`);

/** Rows older than this are deleted; a reader that could not read for half of it starts over. */
const KEEP_MS = 10 * 60_000;
/**
 * How far back rows are read again while their transactions may still be committing. Any long
 * transaction on the server holds the horizon back (pg_dump, a report); without this bound every
 * read would return everything since. Bookings commit in milliseconds.
 */
const LATE_COMMIT_MS = 60_000;
const PRUNE_EVERY_MS = 60_000;

/**
 * Tells in-memory caches when another process committed a change to what they hold, so they can
 * serve reads without asking the database each time. PostgreSQL: writers add a `change_log` row
 * in their transaction and every process reads the new rows every `pollMs`. SQLite polls its
 * `data_version`, which moves only on other connections' commits, and then reports "everything"
 * (it cannot say what changed; other writers are rare there: the CLI, a second process).
 */
export class ChangeFeed {
  /** Identifies this process in the log, so it skips its own changes (it updated its caches already). */
  readonly origin = randomBase62(12);
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private lastDataVersion: number | undefined;
  private checkedAt = 0;
  /** PostgreSQL: rows of transactions with a txid below this were all read. */
  private horizon = 0;
  /** Rows read again until the horizon passes them, already reported: seq → txid and when first read. */
  private readonly seen = new Map<number, { txid: number; readAt: number }>();
  private readAt = 0;
  private prunedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;

  /**
   * @param pollMs how often other processes' commits are looked for. SQLite: `data_version` is
   *   read at most this often, when a cache is consulted (reading it takes file locks).
   *   PostgreSQL: the change log is read on this timer.
   */
  constructor(
    private readonly database: Database,
    private readonly pollMs = 50,
  ) {
    this.lastDataVersion = database.dataVersion?.();
  }

  /** Starts reading the change log (PostgreSQL); changes committed after this are reported. */
  async start(): Promise<void> {
    if (this.database.dialect !== 'postgres' || this.timer) return;
    const [row] = await HORIZON.rows(this.database.db, 'postgres', []);
    this.horizon = row.xmin;
    this.readAt = this.prunedAt = Date.now();
    this.timer = setInterval(() => {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
    }, this.pollMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.reading;
  }

  subscribe(topic: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Call before trusting a cache: on SQLite this is where other processes' commits are noticed. */
  check(): void {
    if (!this.database.dataVersion) return;
    const wall = Date.now();
    if (wall - this.checkedAt < this.pollMs) return;
    this.checkedAt = wall;
    const version = this.database.dataVersion();
    if (version !== this.lastDataVersion) {
      this.lastDataVersion = version;
      this.emitAll();
    }
  }

  /** The change-log text for `topic`/`key`, for writers that fold it into a statement of their own. */
  payload(topic: string, key: string): string {
    return `${this.origin}|${topic}|${key}`;
  }

  /** Announces a change from inside the writing transaction (a no-op on SQLite). */
  async publish(trx: DbOrTx, topic: string, key: string): Promise<void> {
    if (this.database.dialect !== 'postgres') return;
    await RECORD.run(trx, 'postgres', [this.payload(topic, key)]);
  }

  /** Reads the rows committed since the last read (PostgreSQL); a failed read is retried on the next tick. */
  private async read(): Promise<void> {
    let rows;
    try {
      rows = await READ.rows(this.database.db, 'postgres', [this.horizon, LATE_COMMIT_MS]);
    } catch {
      return;
    }
    const wall = Date.now();
    // Unread for so long that rows may have been pruned meanwhile: everything may have changed.
    if (wall - this.readAt > KEEP_MS / 2) this.emitAll();
    this.readAt = wall;
    for (const row of rows) {
      if (row.seq === null || this.seen.has(row.seq)) continue;
      this.seen.set(row.seq, { txid: row.txid!, readAt: wall });
      this.received(row.payload!);
    }
    this.horizon = rows[0].xmin;
    for (const [seq, row] of this.seen) {
      if (row.txid < this.horizon || wall - row.readAt > 2 * LATE_COMMIT_MS) this.seen.delete(seq);
    }
    if (wall - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = wall;
      await PRUNE.run(this.database.db, 'postgres', [KEEP_MS]).catch(() => {});
    }
  }

  private received(payload: string): void {
    const [origin, topic, ...rest] = payload.split('|');
    if (origin === this.origin || topic === undefined) return;
    const key = rest.join('|');
    for (const listener of this.listeners.get(topic) ?? []) listener(key);
  }

  private emitAll(): void {
    for (const set of this.listeners.values()) for (const listener of set) listener(undefined);
  }
}
