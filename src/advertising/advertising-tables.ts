import { sql } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';

/** Program types (facts.md §8.1). */
export const PROGRAM_TYPES = ['BP', 'EP', 'CPC', 'RCA', 'CTA', 'SLIDESHOW', 'BH', 'VL', 'LOGO', 'PORTFOLIO'] as const;
export type ProgramType = (typeof PROGRAM_TYPES)[number];

export interface AdProgramsTable {
  id: string;
  partner_id: string;
  business_id: string;
  program_type: ProgramType;
  /** ACTIVE from creation (it may start later) until ended or past its end date. */
  state: 'ACTIVE' | 'ENDED';
  /** 00:00 America/Los_Angeles of the start date (or the moment it was created), ms. */
  start_at: number;
  /** 23:59:59.999 America/Los_Angeles of the end date, ms; null: until ended. */
  end_at: number | null;
  start_date: string;
  end_date: string | null;
  budget: number | null;
  currency: string;
  is_autobid: number | null;
  max_bid: number | null;
  pacing_method: string | null;
  fee_period: string;
  /** JSON list of category aliases. */
  ad_categories: string;
  pause_status: 'NOT_PAUSED' | 'PAUSED';
  ended_at: number | null;
  created_at: number;
  updated_at: number;
}

/** An advertising job (partner-visible: job_id, receipt); internal background work is a task. */
export interface AdJobsTable {
  id: string;
  partner_id: string;
  kind: 'create' | 'edit' | 'end';
  business_id: string | null;
  program_id: string | null;
  /** The request's parameters (JSON), as the job will judge them. */
  request: string;
  status: 'PROCESSING' | 'COMPLETED';
  /** The receipt's business_results once completed (JSON). */
  results: string | null;
  created_at: number;
  completed_at: number | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    ad_programs: AdProgramsTable;
    ad_jobs: AdJobsTable;
  }
}

export const advertisingMigration: PbsMigration = {
  name: '0400_advertising',
  async up(db) {
    await db.schema
      .createTable('ad_programs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('program_type', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('start_at', 'bigint', (c) => c.notNull())
      .addColumn('end_at', 'bigint')
      .addColumn('start_date', 'text', (c) => c.notNull())
      .addColumn('end_date', 'text')
      .addColumn('budget', 'bigint')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('is_autobid', 'integer')
      .addColumn('max_bid', 'bigint')
      .addColumn('pacing_method', 'text')
      .addColumn('fee_period', 'text', (c) => c.notNull())
      .addColumn('ad_categories', 'text', (c) => c.notNull())
      .addColumn('pause_status', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One active program of a type per business, whoever bought it: concurrent creates cannot both win.
    await db.schema
      .createIndex('ad_programs_one_active')
      .on('ad_programs')
      .columns(['business_id', 'program_type'])
      .unique()
      .where(sql.ref('state'), '=', 'ACTIVE')
      .execute();
    await db.schema.createIndex('ad_programs_partner').on('ad_programs').columns(['partner_id', 'created_at']).execute();
    await db.schema
      .createTable('ad_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text')
      .addColumn('program_id', 'text')
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('results', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('ad_jobs_partner').on('ad_jobs').columns(['partner_id', 'created_at']).execute();
  },
};
