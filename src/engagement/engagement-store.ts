import { sql, type Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
import type { EngagementActivityTable, EngagementScoresTable, EngagementWeeksTable } from './engagement-tables.js';
import './engagement-tables.js';

export type ActivityRow = Selectable<EngagementActivityTable>;
export type ScoreRow = Selectable<EngagementScoresTable>;
export type WeekRow = Selectable<EngagementWeeksTable>;

/** Rows per multi-row INSERT (SQLite allows 32,766 parameters a statement). */
const INSERT_CHUNK = 1000;
const WEEK_ACTIVITY = new RawStatement<ActivityRow>('select * from engagement_activity where week_start = ?');
const INSERT_SCORE = new RawStatement('insert into engagement_scores (business_id, week_start, engagement_metric, intent_metric, transaction_metric) values (?, ?, ?, ?, ?)');

/** SQL of weekly activity, weeks and scores. */
export class EngagementStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  /** Writes activity rows; a (week, business) given again replaces its figures. */
  async upsertActivity(rows: ActivityRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await this.db
        .insertInto('engagement_activity')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) =>
          oc.columns(['week_start', 'business_id']).doUpdateSet((eb) => ({
            page_views: eb.ref('excluded.page_views'),
            website_clicks: eb.ref('excluded.website_clicks'),
            bookmarks: eb.ref('excluded.bookmarks'),
            calls_and_messages: eb.ref('excluded.calls_and_messages'),
            direction_clicks: eb.ref('excluded.direction_clicks'),
            reviews_and_photos: eb.ref('excluded.reviews_and_photos'),
            check_ins: eb.ref('excluded.check_ins'),
            transactions: eb.ref('excluded.transactions'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
  }

  /** Marks weeks as changed: their scores are due again. */
  async touchWeeks(weeks: string[], now: number): Promise<void> {
    for (const week of weeks) {
      await this.db
        .insertInto('engagement_weeks')
        .values({ week_start: week, data_version: 1, scored_version: 0, scored_at: null, businesses_scored: 0, changed_at: now })
        .onConflict((oc) => oc.column('week_start').doUpdateSet({ data_version: sql`engagement_weeks.data_version + 1`, changed_at: now }))
        .execute();
    }
  }

  /** The week, locked on PostgreSQL so one process at a time scores it. */
  lockWeek(week: string) {
    return forUpdateOn(this.db.selectFrom('engagement_weeks').selectAll().where('week_start', '=', week), this.dialect).executeTakeFirst();
  }

  weekActivity(week: string): Promise<ActivityRow[]> {
    return WEEK_ACTIVITY.rows(this.db, this.dialect, [week]);
  }

  /** Replaces a week's scores. */
  async replaceScores(week: string, rows: ScoreRow[]): Promise<void> {
    await this.db.deleteFrom('engagement_scores').where('week_start', '=', week).execute();
    if (this.dialect === 'postgres') {
      // One statement for the whole week: arrays in, rows out.
      for (let i = 0; i < rows.length; i += 50_000) {
        const chunk = rows.slice(i, i + 50_000);
        await sql`insert into engagement_scores (business_id, week_start, engagement_metric, intent_metric, transaction_metric)
          select b, ${week}, e, t, x from unnest(${chunk.map((r) => r.business_id)}::text[], ${chunk.map((r) => r.engagement_metric)}::int[],
            ${chunk.map((r) => r.intent_metric)}::int[], ${chunk.map((r) => r.transaction_metric)}::int[]) as s(b, e, t, x)`.execute(this.db);
      }
      return;
    }
    // SQLite: one prepared statement run per row inside the transaction.
    for (const r of rows) await INSERT_SCORE.run(this.db, this.dialect, [r.business_id, week, r.engagement_metric, r.intent_metric, r.transaction_metric]);
  }

  async markScored(week: string, version: number, now: number, businesses: number): Promise<void> {
    await this.db.updateTable('engagement_weeks').set({ scored_version: version, scored_at: now, businesses_scored: businesses }).where('week_start', '=', week).execute();
  }

  /** Weeks loaded since their last scoring. */
  async dirtyWeeks(): Promise<string[]> {
    const rows = await this.db.selectFrom('engagement_weeks').select('week_start').whereRef('scored_version', '<', 'data_version').orderBy('week_start').execute();
    return rows.map((r) => r.week_start);
  }

  /** The most recent week with scores, if any. */
  async latestScoredWeek(): Promise<string | undefined> {
    const row = await this.db.selectFrom('engagement_weeks').select((eb) => eb.fn.max('week_start').as('week')).where('scored_at', 'is not', null).executeTakeFirst();
    return row?.week ?? undefined;
  }

  weeks(limit: number, offset: number) {
    return this.db.selectFrom('engagement_weeks').selectAll().orderBy('week_start', 'desc').limit(limit).offset(offset).execute();
  }

  /** Every week's scores of these businesses, by business then week. */
  scoresOf(businessIds: string[]): Promise<ScoreRow[]> {
    if (businessIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('engagement_scores').selectAll().where('business_id', 'in', businessIds).orderBy('business_id').orderBy('week_start').execute();
  }

  activityOf(businessId: string) {
    return this.db.selectFrom('engagement_activity').selectAll().where('business_id', '=', businessId).orderBy('week_start').execute();
  }
}
