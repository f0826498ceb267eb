import { keepDirectoryToOwner } from './data-directory.js';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { GroupCommit, WRITE_LOCK_TABLE } from './group-commit.js';
import { preparedOnPostgres } from './raw.js';
import { codeOf } from '../values.js';

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
 * truncated back after a checkpoint, and, for the whole connection, a wait for locks.
 */
export function useLogFileSettings(sqlite: SqliteDatabase.Database, prefix: string): void {
  // Only takes effect before the file's first page is written, so before WAL is set.
  sqlite.pragma(`${prefix}page_size = ${LOG_FILE_PAGE_BYTES}`);
  sqlite.pragma(`${prefix}journal_mode = WAL`);
  sqlite.pragma(`${prefix}synchronous = OFF`);
  sqlite.pragma(`${prefix}journal_size_limit = 67108864`);
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
}

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
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.pgPoolSize ?? 10,
      types: pgTypes,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client losing its connection must not crash the process.
    pool.on('error', () => {});
    pool.on('connect', (client) => usePreparedStatements(client));
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    const url = new URL(options.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      location: { dialect: 'postgres', url: options.databaseUrl, schema },
      description: `postgres://${url.host}${url.pathname}${schema ? ` (schema ${schema})` : ''}`,
      transact: (work) => db.transaction().execute(work),
      close: () => db.destroy(),
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
  const groupCommit = new GroupCommit(db, (text) => statements.prepare(text));
  return {
    db,
    dialect: 'sqlite',
    location: file === ':memory:' ? undefined : { dialect: 'sqlite', logFile },
    description: `sqlite:${file}`,
    transact: (work) => groupCommit.run(work),
    dataVersion: () => Number(dataVersion.get()),
    close: () => db.destroy(),
  };
}

/**
 * Kysely prepares every query anew; better-sqlite3 statements can be reused, and preparing is a
 * large share of a small query's cost. Statements run synchronously, so one per SQL text is safe.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        // Queries with generated IN-lists make many texts; keep the cache bounded.
        if (cache.size > 2000) cache.clear();
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
 * Sends the hot-path statements (RawStatement) as named prepared statements: Kysely passes plain
 * text, so the client's query is wrapped to add the name for texts that were registered.
 */
function usePreparedStatements(client: pg.PoolClient): void {
  // Casts: pg's `query` has a dozen overloads; the wrapper forwards whatever it is called with,
  // so it is typed as the loosest function and put back in its place.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof config === 'string' ? preparedOnPostgres.get(config) : undefined;
    if (name && Array.isArray(values)) return query({ name, text: config, values }, callback);
    return query(config, values, callback);
  };
}

/** Booleans are stored as 0/1 on both databases so one set of migrations serves both. */
/**
 * A row read to be changed in the same transaction: locked (`FOR UPDATE`) on PostgreSQL, so two
 * transactions wanting it take turns; SQLite's single writer serialises them already (and has no
 * such clause).
 */
export function forUpdateOn<Q extends { forUpdate(): Q }>(query: Q, dialect: Dialect): Q {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

export const toFlag = (value: boolean): number => (value ? 1 : 0);
export const fromFlag = (value: number | boolean | null | undefined): boolean => Boolean(value);

export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
