import { sql, type Generated, type Kysely } from 'kysely';
import { LOG_SCHEMA, type DbOrTx } from '../platform/db/database.js';
import type { PbsMigration } from '../platform/db/migrate.js';

/** One partner request as the request log keeps it (docs/request-log.md). */
export interface RequestLogTable {
  /** Increasing in the order entries were written (a cursor for listing and tailing). */
  id: Generated<number>;
  /** pbs time (ms) when the answer was sent. */
  at: number;
  /** Null when the request did not authenticate (no partner is known). */
  partner_id: string | null;
  credential_kind: string | null;
  credential_id: string | null;
  interface: string;
  operation: string;
  method: string;
  path: string;
  /** The query string, secrets redacted and guest data masked. */
  query: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  idempotency_key: string | null;
  client_address: string;
  request_body: string | null;
  response_body: string | null;
  /** 1 when a body was longer than the cap and is cut. */
  bodies_cut: number;
  /** The fault rule that answered instead of pbs, or delayed it (docs/faults.md). */
  fault_rule: string | null;
}

/** Every column an entry is written with, but the bodies: what a listing reads (with the id). */
export const REQUEST_LOG_FIELDS = [
  'at',
  'partner_id',
  'credential_kind',
  'credential_id',
  'interface',
  'operation',
  'method',
  'path',
  'query',
  'status',
  'error_code',
  'duration_ms',
  'request_id',
  'idempotency_key',
  'client_address',
  'bodies_cut',
  'fault_rule',
] as const;

declare module '../platform/db/database.js' {
  interface Tables {
    request_log: RequestLogTable;
  }
}

export const requestLogMigration: PbsMigration = {
  name: '0900_request_log',
  async up(db, dialect) {
    await db.schema
      .createTable('request_log')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('partner_id', 'text')
      .addColumn('credential_kind', 'text')
      .addColumn('credential_id', 'text')
      .addColumn('interface', 'text', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('duration_ms', 'double precision', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('client_address', 'text', (c) => c.notNull())
      .addColumn('request_body', 'text')
      .addColumn('response_body', 'text')
      .addColumn('bodies_cut', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('request_log_partner').on('request_log').columns(['partner_id', 'id']).execute();
    await db.schema.createIndex('request_log_at').on('request_log').columns(['at']).execute();
  },
};

/** Entries say which fault rule acted on them. */
export const requestLogFaultMigration: PbsMigration = {
  name: '0902_request_log_fault',
  async up(db) {
    await db.schema.alterTable('request_log').addColumn('fault_rule', 'text').execute();
  },
};

/**
 * SQLite: the request log lives in the log file (`LOG_SCHEMA`, src/platform/db/database.ts), so
 * its batches neither wait for nor hold the main file's write lock, nor make other processes
 * drop their caches. Creates the table there when missing (a new file, or one deleted by hand).
 */
export async function ensureLogFileTable(db: DbOrTx | Kysely<unknown>): Promise<void> {
  // Cast: a transaction takes the same statements; only `sql.raw(…).execute` is used on it.
  const executor = db as Kysely<unknown>;
  await sql
    .raw(
      `create table if not exists ${LOG_SCHEMA}.request_log (
        id integer primary key autoincrement, at bigint not null, partner_id text, credential_kind text, credential_id text,
        interface text not null, operation text not null, method text not null, path text not null, query text not null,
        status integer not null, error_code text, duration_ms double precision not null, request_id text not null,
        idempotency_key text, client_address text not null, request_body text, response_body text,
        bodies_cut integer not null default 0, fault_rule text)`,
    )
    .execute(executor);
  await sql.raw(`create index if not exists ${LOG_SCHEMA}.request_log_partner on request_log (partner_id, id)`).execute(executor);
  await sql.raw(`create index if not exists ${LOG_SCHEMA}.request_log_at on request_log (at)`).execute(executor);
  await sql.raw(`create index if not exists ${LOG_SCHEMA}.request_log_request_id on request_log (request_id)`).execute(executor);
}

/**
 * A request found by its X-Request-Id (the console's "find anything", the log's request_id
 * filter) is read from an index, not by a scan of the log. SQLite's log file gets it where its
 * table is made (ensureLogFileTable).
 */
export const requestLogRequestIdMigration: PbsMigration = {
  name: '0906_request_log_request_id',
  async up(db, dialect) {
    if (dialect === 'sqlite') return;
    await db.schema.createIndex('request_log_request_id').ifNotExists().on('request_log').column('request_id').execute();
  },
};

/** SQLite: the entries written so far move to the log file. */
export const requestLogFileMigration: PbsMigration = {
  name: '0904_request_log_own_file',
  async up(db, dialect) {
    if (dialect !== 'sqlite') return;
    await ensureLogFileTable(db);
    const columns = ['id', ...REQUEST_LOG_FIELDS, 'request_body', 'response_body'].join(', ');
    await sql.raw(`insert or ignore into ${LOG_SCHEMA}.request_log (${columns}) select ${columns} from main.request_log`).execute(db);
    await sql.raw('drop table main.request_log').execute(db);
  },
};
