import { sql, type Expression, type Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import type { EngagementActivityTable, EngagementScoresTable, EngagementWeeksTable } from './engagement-tables.js';
import './engagement-tables.js';
import { ACTIVITY_FIELDS, LEVELS, WEIGHTS, type ActivityField } from './scoring.js';

export type ActivityRow = Selectable<EngagementActivityTable>;
export type ScoreRow = Selectable<EngagementScoresTable>;
export type WeekRow = Selectable<EngagementWeeksTable>;

/** Rows per multi-row INSERT (SQLite allows 32,766 parameters a statement). */
const INSERT_CHUNK = 1000;

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

  /**
   * Scores a week in the database, in one statement, and answers how many businesses it scored:
   * the statement form of `scoreWeek` (scoring.ts), so a country's million businesses are never
   * in this process's memory. `rank() - 1` counts the population strictly below a value, as
   * `levelsOf` does, and integer division floors as it does (a test holds the two equal).
   * `population`: the ids of the businesses that count (North American ones).
   */
  async scoreInPlace(week: string, population: Expression<{ id: string }>): Promise<number> {
    await this.db.deleteFrom('engagement_scores').where('week_start', '=', week).execute();
    const weighted = (fields: readonly ActivityField[]) =>
      sql.join(
        fields.map((f) => sql`${sql.lit(WEIGHTS[f])} * ${sql.ref(`a.${f}`)}`),
        sql` + `,
      );
    const level = (levels: number, column: string) => sql`1 + (${sql.lit(levels)} * (rank() over (order by ${sql.ref(column)}) - 1)) / n`;
    const result = await sql`
      insert into engagement_scores (business_id, week_start, engagement_metric, intent_metric, transaction_metric)
      select business_id, week_start, ${level(LEVELS.engagement, 'e')}, ${level(LEVELS.intent, 't')}, ${level(LEVELS.transaction, 'x')}
      from (
        select a.business_id, a.week_start,
          ${weighted(ACTIVITY_FIELDS)} as e,
          ${weighted(ACTIVITY_FIELDS.filter((f) => f !== 'page_views'))} as t,
          a.transactions as x,
          count(*) over () as n
        from engagement_activity a
        where a.week_start = ${week} and a.business_id in (${population})
      ) s`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  async markScored(week: string, version: number, now: number, businesses: number): Promise<void> {
    await this.db
      .updateTable('engagement_weeks')
      .set({ scored_version: version, scored_at: now, businesses_scored: businesses })
      .where('week_start', '=', week)
      .execute();
  }

  /** Weeks loaded since their last scoring. */
  async dirtyWeeks(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('engagement_weeks')
      .select('week_start')
      .whereRef('scored_version', '<', 'data_version')
      .orderBy('week_start')
      .execute();
    return rows.map((r) => r.week_start);
  }

  /** The most recent week with scores, if any. */
  async latestScoredWeek(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('engagement_weeks')
      .select((eb) => eb.fn.max('week_start').as('week'))
      .where('scored_at', 'is not', null)
      .executeTakeFirst();
    return row?.week ?? undefined;
  }

  weeks(limit: number, offset: number) {
    return this.db.selectFrom('engagement_weeks').selectAll().orderBy('week_start', 'desc').limit(limit).offset(offset).execute();
  }

  /** Every week's scores of these businesses, by business then week. */
  scoresOf(businessIds: string[]): Promise<ScoreRow[]> {
    if (businessIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('engagement_scores')
      .selectAll()
      .where('business_id', 'in', businessIds)
      .orderBy('business_id')
      .orderBy('week_start')
      .execute();
  }

  activityOf(businessId: string) {
    return this.db.selectFrom('engagement_activity').selectAll().where('business_id', '=', businessId).orderBy('week_start').execute();
  }
}
