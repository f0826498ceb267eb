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
}

export type JobState = 'pending' | 'running' | 'succeeded' | 'dead';

export interface JobsTable {
  id: string;
  type: string;
  payload: string;
  state: JobState;
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

declare module './database.js' {
  interface Tables {
    settings: SettingsTable;
    idempotency_keys: IdempotencyKeysTable;
    jobs: JobsTable;
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
