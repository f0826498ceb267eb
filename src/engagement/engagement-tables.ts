import type { PbsMigration } from '../platform/db/migrate.js';

/** One business's raw activity in one week (weeks start on Monday), as the operator loads it. */
export interface EngagementActivityTable {
  week_start: string;
  business_id: string;
  page_views: number;
  website_clicks: number;
  bookmarks: number;
  calls_and_messages: number;
  direction_clicks: number;
  reviews_and_photos: number;
  check_ins: number;
  transactions: number;
  updated_at: number;
}

/**
 * A week with activity: `data_version` moves on every load into it, `scored_version` says which
 * load its scores were computed from (equal: scored and current).
 */
export interface EngagementWeeksTable {
  week_start: string;
  data_version: number;
  scored_version: number;
  scored_at: number | null;
  /** North American businesses in the last scoring. */
  businesses_scored: number;
  changed_at: number;
}

/** A business's scores in a week. */
export interface EngagementScoresTable {
  business_id: string;
  week_start: string;
  engagement_metric: number;
  intent_metric: number;
  transaction_metric: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    engagement_activity: EngagementActivityTable;
    engagement_weeks: EngagementWeeksTable;
    engagement_scores: EngagementScoresTable;
  }
}

export const engagementMigration: PbsMigration = {
  name: '0800_engagement',
  async up(db) {
    let activity = db.schema
      .createTable('engagement_activity')
      .addColumn('week_start', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull());
    // Spelled out rather than ACTIVITY_FIELDS: a migration creates what existed when it was written.
    for (const column of [
      'page_views',
      'website_clicks',
      'bookmarks',
      'calls_and_messages',
      'direction_clicks',
      'reviews_and_photos',
      'check_ins',
      'transactions',
      'updated_at',
    ]) {
      activity = activity.addColumn(column, 'bigint', (c) => c.notNull());
    }
    await activity.addPrimaryKeyConstraint('engagement_activity_pk', ['week_start', 'business_id']).execute();
    await db.schema
      .createTable('engagement_weeks')
      .addColumn('week_start', 'text', (c) => c.primaryKey())
      .addColumn('data_version', 'integer', (c) => c.notNull())
      .addColumn('scored_version', 'integer', (c) => c.notNull())
      .addColumn('scored_at', 'bigint')
      .addColumn('businesses_scored', 'integer', (c) => c.notNull())
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('engagement_scores')
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('week_start', 'text', (c) => c.notNull())
      .addColumn('engagement_metric', 'integer', (c) => c.notNull())
      .addColumn('intent_metric', 'integer', (c) => c.notNull())
      .addColumn('transaction_metric', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('engagement_scores_pk', ['business_id', 'week_start'])
      .execute();
    await db.schema.createIndex('engagement_scores_week').on('engagement_scores').column('week_start').execute();
  },
};
