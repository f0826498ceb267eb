import { sql } from 'kysely';
import { LOG_SCHEMA, type DbOrTx } from '../platform/db/database.js';
import type { PbsMigration } from '../platform/db/migrate.js';

/**
 * A partner's readiness (docs/readiness.md): its progress as the judge left it (readiness-judge.ts,
 * as JSON), updated with each batch of the request log in that batch's transaction. On SQLite it
 * lives beside the request log, in the log file, which the log's writer thread writes.
 */
export interface ReadinessProgressTable {
  partner_id: string;
  /** The judge's Progress as JSON; empty for a row made only to be locked. */
  progress: string;
  updated_at: number;
}

/** An operator's approval of a partner for launch (docs/readiness.md "Approval"). */
export interface LaunchApprovalsTable {
  partner_id: string;
  approved_by: string;
  approved_at: number;
  note: string;
}

declare module '../platform/db/database.js' {
  interface Tables {
    readiness_progress: ReadinessProgressTable;
    launch_approvals: LaunchApprovalsTable;
  }
}

const PROGRESS_COLUMNS = 'partner_id text primary key, progress text not null, updated_at bigint not null';

export const readinessMigration: PbsMigration = {
  name: '1301_readiness',
  async up(db, dialect) {
    if (dialect === 'postgres') await sql.raw(`create table if not exists readiness_progress (${PROGRESS_COLUMNS})`).execute(db);
    await db.schema
      .createTable('launch_approvals')
      .addColumn('partner_id', 'text', (c) => c.primaryKey())
      .addColumn('approved_by', 'text', (c) => c.notNull())
      .addColumn('approved_at', 'bigint', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .execute();
  },
};

/** SQLite: the progress table in the log file, made where missing (as the request log's own is). */
export async function ensureReadinessTable(db: DbOrTx): Promise<void> {
  await sql.raw(`create table if not exists ${LOG_SCHEMA}.readiness_progress (${PROGRESS_COLUMNS})`).execute(db);
}

/** The same, for a connection that opened the log file itself (the writer thread). */
export const READINESS_TABLE_IN_LOG_FILE = `create table if not exists readiness_progress (${PROGRESS_COLUMNS})`;
