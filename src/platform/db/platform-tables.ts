import type { Generated } from 'kysely';
import type { PbsMigration } from './migrate.js';

export interface SettingsTable {
  key: string;
  value: string;
}

export interface IdempotencyKeysTable {
  partner_id: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  created_at: number;
  /** Wall-clock start of the first attempt, to take over requests whose process died. */
  locked_at: number;
  expires_at: number;
  /**
   * Which attempt claimed the key (random): only that attempt lets it go, so an attempt that
   * could not tell whether its claim was written (the database went away) may let go of it later
   * without taking another attempt's claim. Null for keys claimed before it existed.
   */
  claim: string | null;
}

export type TaskState = 'pending' | 'running' | 'succeeded' | 'dead';

/** Background work (see TaskRunner); the table was called `jobs` before migration 0008. */
export interface TasksTable {
  id: string;
  type: string;
  payload: string;
  state: TaskState;
  attempts: Generated<number>;
  max_attempts: number;
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** Recurring work: when each schedule runs next, and who holds it while it runs. */
export interface TaskSchedulesTable {
  name: string;
  next_run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_run_at: number | null;
  last_error: string | null;
}

declare module './database.js' {
  interface Tables {
    settings: SettingsTable;
    idempotency_keys: IdempotencyKeysTable;
    tasks: TasksTable;
    task_schedules: TaskSchedulesTable;
  }
}

export const platformMigration: PbsMigration = {
  name: '0001_platform',
  async up(db) {
    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['partner_id', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_by', 'text')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();
  },
};

/**
 * Background "jobs" become "tasks": the advertising interface's jobs are partner-visible (job_id,
 * receipts) and must not share a name with internal work. Recurring work gets its schedule table.
 */
export const tasksMigration: PbsMigration = {
  name: '0008_tasks',
  async up(db) {
    await db.schema.alterTable('jobs').renameTo('tasks').execute();
    await db.schema.dropIndex('jobs_due').execute();
    await db.schema.createIndex('tasks_due').on('tasks').columns(['state', 'run_at']).execute();
    await db.schema
      .createTable('task_schedules')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('next_run_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_by', 'text')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_run_at', 'bigint')
      .addColumn('last_error', 'text')
      .execute();
  },
};

/** Idempotency keys remember which attempt claimed them (IdempotencyKeysTable.claim). */
export const idempotencyClaimMigration: PbsMigration = {
  name: '0010_idempotency_claims',
  async up(db) {
    await db.schema.alterTable('idempotency_keys').addColumn('claim', 'text').execute();
  },
};
