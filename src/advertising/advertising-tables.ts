import { sql } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { Json } from '../platform/values.js';
import type { CreateRequest, EditRequest, EndRequest } from './advertising-input.js';
import type { BusinessResult } from './advertising-receipts.js';
import type { FeatureValue } from './program-features.js';

/** Program types (docs/contract/advertising.md §8.1). */
export const PROGRAM_TYPES = ['BP', 'EP', 'CPC', 'RCA', 'CTA', 'SLIDESHOW', 'BH', 'VL', 'LOGO', 'PORTFOLIO'] as const;
export type ProgramType = (typeof PROGRAM_TYPES)[number];

export const PROGRAM_STATES = ['ACTIVE', 'ENDED', 'CANCELED'] as const;
export type ProgramState = (typeof PROGRAM_STATES)[number];
export const JOB_STATES = ['PROCESSING', 'COMPLETED'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface AdProgramsTable {
  id: string;
  partner_id: string;
  business_id: string;
  program_type: ProgramType;
  /**
   * ACTIVE from creation (it may start later) until ended or past its end date; CANCELED when
   * ended before it started (docs/contract/advertising.md §8.3: the id is invalidated and leaves the listings).
   */
  state: ProgramState;
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
  /** The program a promotion was applied to (docs/contract/advertising.md §8.9: the promo is a separate program). */
  parent_program_id: string | null;
  promotion_code: string | null;
  /** A scheduled budget change (edit with future_budget_date), applied on that date. */
  future_budget: number | null;
  future_budget_date: string | null;
}

/** Operator flags of a business for advertising (absent row: none set). */
export interface AdBusinessFlagsTable {
  business_id: string;
  /** Ends the business's programs; creations and edits are rejected (PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH). */
  removed_from_search: number;
  /** New programs are rejected (BUSINESS_RESTRICTED_FROM_ADVERTISING). */
  restricted_from_advertising: number;
  updated_at: number;
}

/** Categories the operator's advertising policy declines (UNSUPPORTED_CATEGORIES for CPC). */
export interface AdCategoryPolicyTable {
  category: string;
  reason: string;
  created_at: number;
}

/** Operator-managed promotion codes (docs/contract/advertising.md §8.9). */
export interface AdPromotionsTable {
  code: string;
  /** JSON list of the program types the code applies to. */
  program_types: string;
  /** The budget a CPC program must stay within to use the code (cents). */
  min_budget: number | null;
  max_budget: number | null;
  /** The promo program ends on the last day of the month this many months after the start. */
  months: number;
  active: number;
  created_at: number;
}

/** What the operator records a program spent and earned on a day (Pacific). */
export interface AdProgramDaysTable {
  program_id: string;
  day: string;
  spend: number;
  billed_clicks: number;
  billed_impressions: number;
}

/** An advertising job (partner-visible: job_id, receipt); internal background work is a task. */
export interface AdJobsTable {
  id: string;
  partner_id: string;
  kind: 'create' | 'edit' | 'end';
  business_id: string | null;
  program_id: string | null;
  /** The request's parameters (JSON), as the job will judge them. */
  request: Json<CreateRequest | EditRequest | EndRequest>;
  status: JobState;
  /** The receipt's business_results once completed (JSON). */
  results: Json<BusinessResult[]> | null;
  created_at: number;
  completed_at: number | null;
  /** Held by the operator (sandbox): not applied until released or completed. */
  held: number;
  /** The partner request that created the job: its events link back to it (docs/request-log.md "Links"). */
  request_id: string | null;
}

/** A program's features set through the Program Feature API (docs/advertising.md "Program features"). */
export interface AdProgramFeaturesTable {
  program_id: string;
  feature_type: string;
  /** JSON: the feature's fields as stored (program-features.ts readFeature). */
  value: Json<FeatureValue>;
  updated_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    ad_program_features: AdProgramFeaturesTable;
    ad_programs: AdProgramsTable;
    ad_jobs: AdJobsTable;
    ad_business_flags: AdBusinessFlagsTable;
    ad_category_policy: AdCategoryPolicyTable;
    ad_promotions: AdPromotionsTable;
    ad_program_days: AdProgramDaysTable;
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

/** The operator's side: business flags, category policy, promotions, recorded spend, held jobs. */
export const advertisingOperatorMigration: PbsMigration = {
  name: '0401_advertising_operator',
  async up(db) {
    await db.schema.alterTable('ad_programs').addColumn('parent_program_id', 'text').execute();
    await db.schema.alterTable('ad_programs').addColumn('promotion_code', 'text').execute();
    await db.schema.alterTable('ad_programs').addColumn('future_budget', 'bigint').execute();
    await db.schema.alterTable('ad_programs').addColumn('future_budget_date', 'text').execute();
    await db.schema
      .alterTable('ad_jobs')
      .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // A promo program runs beside its parent, of the same type: only parents are one per type.
    await db.schema.dropIndex('ad_programs_one_active').execute();
    await sql`create unique index ad_programs_one_active on ad_programs (business_id, program_type) where state = 'ACTIVE' and parent_program_id is null`.execute(
      db,
    );
    await db.schema.createIndex('ad_programs_business').on('ad_programs').columns(['business_id', 'created_at']).execute();
    await db.schema.createIndex('ad_programs_parent').on('ad_programs').column('parent_program_id').execute();
    await db.schema
      .createTable('ad_business_flags')
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('removed_from_search', 'integer', (c) => c.notNull())
      .addColumn('restricted_from_advertising', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('ad_category_policy')
      .addColumn('category', 'text', (c) => c.primaryKey())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('ad_promotions')
      .addColumn('code', 'text', (c) => c.primaryKey())
      .addColumn('program_types', 'text', (c) => c.notNull())
      .addColumn('min_budget', 'bigint')
      .addColumn('max_budget', 'bigint')
      .addColumn('months', 'integer', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('ad_program_days')
      .addColumn('program_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('spend', 'bigint', (c) => c.notNull())
      .addColumn('billed_clicks', 'bigint', (c) => c.notNull())
      .addColumn('billed_impressions', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ad_program_days_pk', ['program_id', 'day'])
      .execute();
  },
};

/** Jobs remember the request that created them, so the events they write when applied link back to it. */
export const advertisingJobRequestMigration: PbsMigration = {
  name: '0403_advertising_job_request',
  async up(db) {
    await db.schema.alterTable('ad_jobs').addColumn('request_id', 'text').execute();
  },
};

/** Program features (docs/contract/advertising.md §8.8): one row per feature a partner set on a program. */
export const advertisingFeaturesMigration: PbsMigration = {
  name: '0402_advertising_features',
  async up(db) {
    await db.schema
      .createTable('ad_program_features')
      .addColumn('program_id', 'text', (c) => c.notNull())
      .addColumn('feature_type', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ad_program_features_pk', ['program_id', 'feature_type'])
      .execute();
  },
};
