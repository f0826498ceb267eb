import { sql, type Selectable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { AdJobsTable, AdProgramsTable, ProgramType } from './advertising-tables.js';
import './advertising-tables.js';

export type AdProgram = Selectable<AdProgramsTable>;
export type AdJob = Selectable<AdJobsTable>;

/** SQL of advertising programs and jobs. */
export class AdvertisingStore {
  constructor(private readonly db: DbOrTx) {}

  insertJob(job: AdJob) {
    return this.db.insertInto('ad_jobs').values(job).execute();
  }

  findJob(id: string) {
    return this.db.selectFrom('ad_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  completeJob(id: string, results: unknown, now: number) {
    return this.db
      .updateTable('ad_jobs')
      .set({ status: 'COMPLETED', results: JSON.stringify(results), completed_at: now })
      .where('id', '=', id)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirst();
  }

  findProgram(id: string) {
    return this.db.selectFrom('ad_programs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The active program of a type for a business, whoever bought it. */
  activeProgram(businessId: string, type: ProgramType) {
    return this.db
      .selectFrom('ad_programs')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('program_type', '=', type)
      .where('state', '=', 'ACTIVE')
      .executeTakeFirst();
  }

  /**
   * Inserts an active program unless one of its type is active for the business already; true
   * when inserted. The conflict target repeats the partial index's predicate as a literal (SQLite
   * matches it only so; a bound parameter names no index).
   */
  async insertProgram(program: AdProgram): Promise<boolean> {
    const result = await this.db
      .insertInto('ad_programs')
      .values(program)
      .onConflict((oc) => oc.columns(['business_id', 'program_type']).where(sql<boolean>`state = 'ACTIVE'`).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  updateProgram(id: string, change: Partial<AdProgram>) {
    return this.db.updateTable('ad_programs').set(change).where('id', '=', id).executeTakeFirst();
  }

  endProgram(id: string, now: number) {
    return this.db
      .updateTable('ad_programs')
      .set({ state: 'ENDED', ended_at: now, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'ACTIVE')
      .executeTakeFirst();
  }

  /** Active programs whose end date has passed become ENDED (the end-of-day schedule). */
  endExpired(now: number) {
    return this.db
      .updateTable('ad_programs')
      .set({ state: 'ENDED', ended_at: now, updated_at: now })
      .where('state', '=', 'ACTIVE')
      .where('end_at', 'is not', null)
      .where('end_at', '<=', now)
      .executeTakeFirst();
  }
}
