import { keepDirectoryToOwner } from './data-directory.js';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { DatabaseAvailability } from './availability.js';
import { GroupCommit, WRITE_LOCK_TABLE } from './group-commit.js';
import { watchPostgresPool } from './postgres-pool.js';
import { codeOf } from '../values.js';
import { BoundedMap } from '../bounded-map.js';

/**
 * Tables are declared by their owners (platform and families) by merging into this interface
 * (`declare module`), so the database type grows with each family without a central edit.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Tables {}

export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;
/** Either the database or an open transaction: stores accept both so callers choose the boundary. */
export type DbOrTx = Db | Tx;

export type Dialect = 'sqlite' | 'postgres';

/**
 * SQLite: the schema of a companion file (`pbs.logs.sqlite` beside `pbs.sqlite`, attached to every
 * connection) for rows written in bulk and kept only for a while, such as the request log. Its
 * commits leave the main file alone, so they neither take the main file's write lock nor move its
 * `data_version` (which empties other processes' caches); it skips fsync (`synchronous = OFF`):
 * a crash may lose its last entries, never the main file's. Unqualified table names find tables
 * there too (SQLite looks in main, then in attached files), so only creating them names it.
 * PostgreSQL keeps such tables with the rest. docs/request-log.md "How it is written".
 */
export const LOG_SCHEMA = 'logs';

/** Where the companion file of `file` lives: `pbs.sqlite` → `pbs.logs.sqlite`. */
export function logFileOf(file: string): string {
  if (file === ':memory:') return file;
  const extension = path.extname(file);
  return `${file.slice(0, file.length - extension.length)}.${LOG_SCHEMA}${extension || '.sqlite'}`;
}

/** Where a database is, for another thread to open a connection of its own (the request log's writer). */
export type DatabaseLocation = { dialect: 'sqlite'; logFile: string } | { dialect: 'postgres'; url: string; schema?: string };

/**
 * What every connection that writes the log file sets (the main connection, through the attached
 * schema, prefix `logs.`; the request log's writer thread, which opens the file alone, prefix ''):
 * 64 kB pages in a new file (an entry with openings' 1.7 kB answer cost SQLite 5.5 µs to insert
 * against 7.9 µs with 4 kB pages; a file made before keeps its size), WAL, no fsync, the WAL
 * truncated back after a checkpoint, deleted rows overwritten (secure_delete: purged entries are
 * gone from the file, not only from the table), and, for the whole connection, a wait for locks.
 */
export function useLogFileSettings(sqlite: SqliteDatabase.Database, prefix: string): void {
  // Only takes effect before the file's first page is written, so before WAL is set.
  sqlite.pragma(`${prefix}page_size = ${LOG_FILE_PAGE_BYTES}`);
  sqlite.pragma(`${prefix}journal_mode = WAL`);
  sqlite.pragma(`${prefix}synchronous = OFF`);
  sqlite.pragma(`${prefix}journal_size_limit = 67108864`);
  // A purged entry's bytes are overwritten, not left readable in free pages of the file.
  sqlite.pragma(`${prefix}secure_delete = ON`);
  sqlite.pragma('busy_timeout = 5000');
}

/** The log file's page size (a new file's; see useLogFileSettings). */
export const LOG_FILE_PAGE_BYTES = 65_536;

/**
 * Checkpoints every ~40 MB of WAL instead of every ~4 MB (on the booking path they were a third
 * of each commit's cost). SQLite counts pages: the main file's are 4 kB, the log file's 64 kB.
 */
export const WAL_CHECKPOINT_BYTES = 40 * 1024 * 1024;

export interface Database {
  db: Db;
  dialect: Dialect;
  /** Absent when no other connection can reach it (SQLite in memory). */
  location?: DatabaseLocation;
  /** Human-readable location, without credentials. */
  description: string;
  /**
   * Runs `work` in a transaction. On SQLite, transactions that arrive together share one commit
   * (see GroupCommit); on PostgreSQL each is its own (the server already groups WAL flushes).
   * The promise settles after the commit.
   */
  transact<T>(work: (trx: Tx) => Promise<T>): Promise<T>;
  /**
   * SQLite: a number that changes whenever another connection (another process) commits; our
   * own commits leave it alone. Cheap enough to read before every cache lookup.
   */
  dataVersion?: () => number;
  /** Whether the database can be used now, as far as this process knows (docs/security.md "When the database goes away"). */
  availability: DatabaseAvailability;
  close(): Promise<void>;
}

/** Throws when the database does not answer (readiness). */
export async function pingDatabase(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}

export interface DatabaseOptions {
  databaseUrl?: string;
  sqlitePath?: string;
  /** PostgreSQL schema to use (tests give every run its own). Created when missing. */
  pgSchema?: string;
  pgPoolSize?: number;
  /**
   * PostgreSQL: how long a connection may take to open, and a probe to answer; also how long a
   * statement may go unanswered before the server is probed (a stalled server). Default 10 s.
   */
  timeoutMs?: number;
  /** PostgreSQL: the server cancels a statement running longer than this (`statement_timeout`). Default 30 s; 0 sets none. */
  statementTimeoutMs?: number;
}

/** Between probes of a database found unreachable: how soon pbs notices it is back. */
const PROBE_EVERY_MS = 1000;

// int8 (count(*), bigint columns) and numeric come back as strings from pg by default; all our
// values fit in a double (millisecond timestamps, counters).
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const schema = options.pgSchema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const timeoutMs = options.timeoutMs ?? 10_000;
    const connection = {
      connectionString: options.databaseUrl,
      // A peer that vanished (a failover, a cut network) is noticed by the kernel, not only by a query.
      keepAlive: true,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    };
    const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
    const pool = new pg.Pool({
      ...connection,
      // Opening a connection is bounded; waiting for one of the pool's is not (a burst of requests
      // queues for the pool's connections, which is load, not an outage).
      Client: class extends pg.Client {
        constructor(config?: pg.ClientConfig) {
          super({ ...config, connectionTimeoutMillis: timeoutMs });
        }
      },
      max: options.pgPoolSize ?? 10,
      types: pgTypes,
      // Sent as a startup parameter; 0 sends none (PgBouncer refuses parameters it does not know).
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    });
    const availability = new DatabaseAvailability({
      probe: () => probePostgres({ ...connection, connectionTimeoutMillis: timeoutMs }, timeoutMs),
      probeEveryMs: PROBE_EVERY_MS,
    });
    const watched = watchPostgresPool(pool, availability, { stallAfterMs: timeoutMs });
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: watched.pool }) });
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    const url = new URL(options.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      location: { dialect: 'postgres', url: options.databaseUrl, schema },
      description: `postgres://${url.host}${url.pathname}${schema ? ` (schema ${schema})` : ''}`,
      transact: (work) => db.transaction().execute(work),
      availability,
      close: async () => {
        watched.close();
        availability.close();
        await db.destroy();
      },
    };
  }
  const file = options.sqlitePath ?? ':memory:';
  const logFile = logFileOf(file);
  if (file !== ':memory:') {
    // Owner only: the database holds partners' data and credential hashes (the log file: their
    // requests). SQLite gives its WAL and shared-memory files the database file's mode.
    keepDirectoryToOwner(path.dirname(file));
    for (const owned of [file, logFile]) {
      fs.closeSync(fs.openSync(owned, 'a', 0o600));
      fs.chmodSync(owned, 0o600);
    }
  }
  const sqlite = new SqliteDatabase(file);
  sqlite.prepare(`attach database ? as ${LOG_SCHEMA}`).run(logFile);
  sqlite.pragma('main.journal_mode = WAL');
  sqlite.pragma('main.synchronous = NORMAL');
  sqlite.pragma('main.journal_size_limit = 67108864');
  sqlite.pragma('foreign_keys = ON');
  useLogFileSettings(sqlite, `${LOG_SCHEMA}.`);
  // The main file's pages (this connection writes the log file only to purge it).
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_BYTES / 4096}`);
  // The table GroupCommit writes nothing into to take the main file's write lock (see there).
  sqlite.exec(`create table if not exists main.${WRITE_LOCK_TABLE} (held integer)`);
  const statements = withStatementCache(sqlite);
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: statements }) });
  // The main file's only: the log file's commits say nothing about what caches hold.
  const dataVersion = sqlite.prepare('pragma main.data_version').pluck();
  const availability = new DatabaseAvailability({ probe: () => probeSqlite(groupCommit), probeEveryMs: PROBE_EVERY_MS });
  const groupCommit = new GroupCommit(
    db,
    (text) => statements.prepare(text),
    (error) => availability.report(error),
  );
  return {
    db,
    dialect: 'sqlite',
    location: file === ':memory:' ? undefined : { dialect: 'sqlite', logFile },
    description: `sqlite:${file}`,
    transact: (work) => groupCommit.run(work),
    dataVersion: () => Number(dataVersion.get()),
    availability,
    close: async () => {
      availability.close();
      await db.destroy();
    },
  };
}

/**
 * Whether PostgreSQL answers: a connection of its own (the pool's may all be stuck on a stalled
 * server) and `select 1`, each within `timeoutMs`.
 */
async function probePostgres(connection: pg.ClientConfig, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ ...connection, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    void client.end().catch(() => {});
  }
}

/**
 * Whether SQLite takes a write again (after a full disk, an I/O error): a row written and removed
 * in one commit, which writes a page to the WAL as any change does.
 */
async function probeSqlite(groupCommit: GroupCommit): Promise<void> {
  await groupCommit.run(async (trx) => {
    await sql`insert into main.${sql.raw(WRITE_LOCK_TABLE)} (held) values (1)`.execute(trx);
    await sql`delete from main.${sql.raw(WRITE_LOCK_TABLE)}`.execute(trx);
  });
}

/**
 * Kysely prepares every query anew; better-sqlite3 statements can be reused, and preparing is a
 * large share of a small query's cost. Statements run synchronously, so one per SQL text is safe.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  // Queries with generated IN-lists make many texts; the cache is bounded.
  const cache = new BoundedMap<string, SqliteDatabase.Statement>(2000);
  return {
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        cache.set(text, statement);
      }
      return statement;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

/**
 * A row read to be changed in the same transaction: locked (`FOR UPDATE`) on PostgreSQL, so two
 * transactions wanting it take turns; SQLite's single writer serialises them already (and has no
 * such clause).
 */
export function forUpdateOn<Q extends { forUpdate(): Q }>(query: Q, dialect: Dialect): Q {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/** Booleans are stored as 0/1 on both databases so one set of migrations serves both. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);
export const fromFlag = (value: number | boolean | null | undefined): boolean => Boolean(value);

export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
