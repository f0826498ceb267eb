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

/** A drill (docs/readiness.md "Drills"): what it set up, its time box, and its grade once over. */
export interface ReadinessDrillsTable {
  id: string;
  partner_id: string;
  kind: string;
  operation: string | null;
  /** Who started it: `partner` (its portal) or the operator's name. */
  started_by: string;
  /** pbs time. */
  started_at: number;
  /** Real time (ms) when its time box ends. */
  ends_at: number;
  state: string;
  /** The marks of its milestones when it started (drill-judge.ts DrillSnapshot), JSON. */
  snapshot: string;
  /** Its grade once over (DrillGrade), JSON. */
  result: string | null;
  /** The fault rules it added, JSON array of ids. */
  fault_ids: string;
  /** The webhook drill's message ids, JSON array. */
  message_ids: string;
  /** The webhook drill: the endpoint's duplicate-and-reorder setting before it (0/1). */
  restore_duplicates: number | null;
}

/**
 * Each partner's latest score (docs/readiness.md "Partners by readiness"): written by every
 * report and by a task that walks the partners, so the console lists every partner by readiness
 * from an index, never by building every report.
 */
export interface ReadinessScoresTable {
  partner_id: string;
  score: number;
  /** 1 when every milestone is green. */
  ready: number;
  /** pbs time. */
  scored_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    readiness_progress: ReadinessProgressTable;
    launch_approvals: LaunchApprovalsTable;
    readiness_drills: ReadinessDrillsTable;
    readiness_scores: ReadinessScoresTable;
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

export const readinessDrillsMigration: PbsMigration = {
  name: '1302_readiness_drills',
  async up(db) {
    await db.schema
      .createTable('readiness_drills')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('operation', 'text')
      .addColumn('started_by', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ends_at', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('snapshot', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('fault_ids', 'text', (c) => c.notNull())
      .addColumn('message_ids', 'text', (c) => c.notNull())
      .addColumn('restore_duplicates', 'integer')
      .execute();
    await db.schema.createIndex('readiness_drills_partner').on('readiness_drills').columns(['partner_id', 'started_at']).execute();
    await db.schema.createIndex('readiness_drills_running').on('readiness_drills').columns(['state', 'ends_at']).execute();
  },
};

export const readinessScoresMigration: PbsMigration = {
  name: '1303_readiness_scores',
  async up(db) {
    await db.schema
      .createTable('readiness_scores')
      .addColumn('partner_id', 'text', (c) => c.primaryKey())
      .addColumn('score', 'integer', (c) => c.notNull())
      .addColumn('ready', 'integer', (c) => c.notNull())
      .addColumn('scored_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('readiness_scores_rank').on('readiness_scores').columns(['score', 'partner_id']).execute();
  },
};

/** SQLite: the progress table in the log file, made where missing (as the request log's own is). */
export async function ensureReadinessTable(db: DbOrTx): Promise<void> {
  await sql.raw(`create table if not exists ${LOG_SCHEMA}.readiness_progress (${PROGRESS_COLUMNS})`).execute(db);
}

/** The same, for a connection that opened the log file itself (the writer thread). */
export const READINESS_TABLE_IN_LOG_FILE = `create table if not exists readiness_progress (${PROGRESS_COLUMNS})`;
