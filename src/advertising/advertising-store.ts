import { sql, type Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
import type {
  AdBusinessFlagsTable,
  AdCategoryPolicyTable,
  AdJobsTable,
  AdProgramDaysTable,
  AdProgramsTable,
  AdPromotionsTable,
  JobState,
  ProgramState,
  ProgramType,
} from './advertising-tables.js';
import './advertising-tables.js';
import { toJson, type Json } from '../platform/values.js';
import type { FeatureValue } from './program-features.js';
import type { BusinessResult } from './advertising-receipts.js';

export type AdProgram = Selectable<AdProgramsTable>;
export type AdJob = Selectable<AdJobsTable>;
export type AdBusinessFlags = Selectable<AdBusinessFlagsTable>;
export type AdCategoryPolicy = Selectable<AdCategoryPolicyTable>;
export type AdPromotion = Selectable<AdPromotionsTable>;
export type AdProgramDay = Selectable<AdProgramDaysTable>;
export interface ProgramTotals {
  spend: number;
  billed_clicks: number;
  billed_impressions: number;
}

/** The status read partners poll: one prepared statement, no query builder. */
const FIND_JOB = new RawStatement<AdJob>('select * from ad_jobs where id = ?');

/** SQL of advertising programs, jobs and the operator's advertising data. */
export class AdvertisingStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  // ---- jobs ------------------------------------------------------------------------------------

  insertJob(job: AdJob) {
    return this.db.insertInto('ad_jobs').values(job).execute();
  }

  async findJob(id: string): Promise<AdJob | undefined> {
    return (await FIND_JOB.rows(this.db, this.dialect, [id]))[0];
  }

  /** The job, locked for the transaction on PostgreSQL (SQLite's writer lock serialises already). */
  lockJob(id: string) {
    return forUpdateOn(this.db.selectFrom('ad_jobs').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  completeJob(id: string, results: BusinessResult[], now: number) {
    return this.db
      .updateTable('ad_jobs')
      .set({ status: 'COMPLETED', results: toJson(results), completed_at: now, held: 0 })
      .where('id', '=', id)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirst();
  }

  async setHeld(id: string, held: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('ad_jobs')
      .set({ held: held ? 1 : 0 })
      .where('id', '=', id)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  listJobs(filter: { partnerId?: string; status?: JobState; limit: number; offset: number }) {
    let query = this.db.selectFrom('ad_jobs').selectAll();
    if (filter.partnerId) query = query.where('partner_id', '=', filter.partnerId);
    if (filter.status) query = query.where('status', '=', filter.status);
    return query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  }

  // ---- programs --------------------------------------------------------------------------------

  findProgram(id: string) {
    return this.db.selectFrom('ad_programs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The program, locked for the transaction on PostgreSQL: two jobs editing it take turns. */
  lockProgram(id: string) {
    return forUpdateOn(this.db.selectFrom('ad_programs').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  /** The active (parent) program of a type for a business, whoever bought it. */
  activeProgram(businessId: string, type: ProgramType) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('program_type', '=', type)
      .where('state', '=', 'ACTIVE')
      .where('parent_program_id', 'is', null)
      .executeTakeFirst();
  }

  /** Whether a business has an active program of any type, whoever bought it. */
  async advertising(businessId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('ad_programs')
      .select('id')
      .where('business_id', '=', businessId)
      .where('state', '=', 'ACTIVE')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Every program of a business (any partner, any state), newest first. */
  programsOfBusiness(businessId: string) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
  }

  /** A partner's visible programs (not canceled) of some businesses, oldest first. */
  partnerProgramsOf(partnerId: string, businessIds: string[]) {
    if (businessIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('business_id', 'in', businessIds)
      .where('state', '!=', 'CANCELED')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** A partner's visible programs among some ids. */
  partnerPrograms(partnerId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('id', 'in', ids)
      .where('state', '!=', 'CANCELED')
      .execute();
  }

  /** A partner's visible programs, every business (the payment account's listing). */
  allPartnerPrograms(partnerId: string) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('state', '!=', 'CANCELED')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  listPrograms(filter: { partnerId?: string; businessId?: string; state?: ProgramState; limit: number; offset: number }) {
    let query = this.db.selectFrom('ad_programs').selectAll();
    if (filter.partnerId) query = query.where('partner_id', '=', filter.partnerId);
    if (filter.businessId) query = query.where('business_id', '=', filter.businessId);
    if (filter.state) query = query.where('state', '=', filter.state);
    return query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  }

  /**
   * Inserts a program; a parent only unless one of its type is active for the business already
   * (true when inserted). The conflict target repeats the partial index's predicate as a literal
   * (SQLite matches it only so; a bound parameter names no index).
   */
  async insertProgram(program: AdProgram): Promise<boolean> {
    const result = await this.db
      .insertInto('ad_programs')
      .values(program)
      .onConflict((oc) =>
        oc
          .columns(['business_id', 'program_type'])
          .where(sql<boolean>`state = 'ACTIVE' and parent_program_id is null`)
          .doNothing(),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  updateProgram(id: string, change: Partial<AdProgram>) {
    return this.db.updateTable('ad_programs').set(change).where('id', '=', id).executeTakeFirst();
  }

  /** Sets an active program's pause status; false when it already had it (or is not active). */
  async setPauseStatus(id: string, status: AdProgram['pause_status'], now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('ad_programs')
      .set({ pause_status: status, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'ACTIVE')
      .where('pause_status', '!=', status)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends an active program (CANCELED when it had not started); true when it was active. */
  async endProgram(id: string, now: number, state: 'ENDED' | 'CANCELED' = 'ENDED'): Promise<boolean> {
    const result = await this.db
      .updateTable('ad_programs')
      .set({ state, ended_at: now, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'ACTIVE')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Active promo programs of a parent. */
  activePromosOf(parentId: string) {
    return this.db.selectFrom('ad_programs').selectAll().where('parent_program_id', '=', parentId).where('state', '=', 'ACTIVE').execute();
  }

  /** Active programs whose end date has passed (the end-of-day schedule), at most `limit`. */
  dueToExpire(now: number, limit: number) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('state', '=', 'ACTIVE')
      .where('end_at', 'is not', null)
      .where('end_at', '<=', now)
      .orderBy('end_at')
      .limit(limit)
      .execute();
  }

  /** Active programs with a scheduled budget change due on or before `today`. */
  dueBudgetChanges(today: string, limit: number) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('state', '=', 'ACTIVE')
      .where('future_budget_date', 'is not', null)
      .where('future_budget_date', '<=', today)
      .limit(limit)
      .execute();
  }

  // ---- the operator's data -----------------------------------------------------------------------

  flagsOf(businessId: string) {
    return this.db.selectFrom('ad_business_flags').selectAll().where('business_id', '=', businessId).executeTakeFirst();
  }

  saveFlags(flags: AdBusinessFlags) {
    const { business_id: _id, ...change } = flags;
    return this.db
      .insertInto('ad_business_flags')
      .values(flags)
      .onConflict((oc) => oc.column('business_id').doUpdateSet(change))
      .execute();
  }

  /** The categories among `categories` the policy declines. */
  async declined(categories: string[]): Promise<AdCategoryPolicy[]> {
    if (categories.length === 0) return [];
    return this.db.selectFrom('ad_category_policy').selectAll().where('category', 'in', categories).execute();
  }

  categoryPolicy() {
    return this.db.selectFrom('ad_category_policy').selectAll().orderBy('category').execute();
  }

  declineCategory(row: AdCategoryPolicy) {
    return this.db
      .insertInto('ad_category_policy')
      .values(row)
      .onConflict((oc) => oc.column('category').doUpdateSet({ reason: row.reason }))
      .execute();
  }

  async allowCategory(category: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ad_category_policy').where('category', '=', category).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  promotion(code: string) {
    return this.db.selectFrom('ad_promotions').selectAll().where('code', '=', code).executeTakeFirst();
  }

  promotions() {
    return this.db.selectFrom('ad_promotions').selectAll().orderBy('code').execute();
  }

  savePromotion(promotion: AdPromotion) {
    const { code: _code, created_at: _created, ...change } = promotion;
    return this.db
      .insertInto('ad_promotions')
      .values(promotion)
      .onConflict((oc) => oc.column('code').doUpdateSet(change))
      .execute();
  }

  /** Stores a day's figures of programs, replacing what was recorded for that day. */
  async saveDays(days: AdProgramDay[]): Promise<void> {
    for (const day of days) {
      await this.db
        .insertInto('ad_program_days')
        .values(day)
        .onConflict((oc) =>
          oc
            .columns(['program_id', 'day'])
            .doUpdateSet({ spend: day.spend, billed_clicks: day.billed_clicks, billed_impressions: day.billed_impressions }),
        )
        .execute();
    }
  }

  /** Which of these program ids exist. */
  async existingPrograms(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('ad_programs').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }

  /** Each program's recorded totals (from `fromDay` on, when given). */
  async totals(programIds: string[], fromDay?: string): Promise<Map<string, ProgramTotals>> {
    const out = new Map<string, ProgramTotals>();
    if (programIds.length === 0) return out;
    let query = this.db
      .selectFrom('ad_program_days')
      .select((eb) => [
        'program_id',
        eb.fn.sum<number>('spend').as('spend'),
        eb.fn.sum<number>('billed_clicks').as('billed_clicks'),
        eb.fn.sum<number>('billed_impressions').as('billed_impressions'),
      ])
      .where('program_id', 'in', programIds);
    if (fromDay) query = query.where('day', '>=', fromDay);
    for (const row of await query.groupBy('program_id').execute()) {
      out.set(row.program_id, {
        spend: Number(row.spend),
        billed_clicks: Number(row.billed_clicks),
        billed_impressions: Number(row.billed_impressions),
      });
    }
    return out;
  }

  // ---- program features (docs/contract/advertising.md §8.8) ------------------------------------------------------------

  features(programId: string) {
    return this.db
      .selectFrom('ad_program_features')
      .select(['feature_type', 'value', 'updated_at'])
      .where('program_id', '=', programId)
      .execute();
  }

  /** The feature types set on each of `programIds` (the listings' active_features). */
  async featureTypesOf(programIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (programIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('ad_program_features')
      .select(['program_id', 'feature_type'])
      .where('program_id', 'in', programIds)
      .orderBy('program_id')
      .orderBy('feature_type')
      .execute();
    for (const row of rows) out.set(row.program_id, [...(out.get(row.program_id) ?? []), row.feature_type]);
    return out;
  }

  saveFeature(programId: string, featureType: string, value: Json<FeatureValue>, now: number) {
    return this.db
      .insertInto('ad_program_features')
      .values({ program_id: programId, feature_type: featureType, value, updated_at: now })
      .onConflict((oc) => oc.columns(['program_id', 'feature_type']).doUpdateSet({ value, updated_at: now }))
      .execute();
  }

  /** Removes the features; answers how many were set. */
  async deleteFeatures(programId: string, featureTypes: string[]): Promise<number> {
    if (featureTypes.length === 0) return 0;
    const result = await this.db
      .deleteFrom('ad_program_features')
      .where('program_id', '=', programId)
      .where('feature_type', 'in', featureTypes)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
