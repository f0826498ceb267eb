import type { Insertable } from 'kysely';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import type { ReadinessDrillsTable } from './readiness-tables.js';
import { RawStatement } from '../platform/db/raw.js';
import { TRACK_SQL } from './readiness-tracker.js';

const SAVE = new RawStatement(TRACK_SQL.save);

/** Readiness progress and launch approvals (readiness-tables.ts). */
export class ReadinessStore {
  constructor(private readonly db: DbOrTx) {}

  async progressOf(partnerId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('readiness_progress').select('progress').where('partner_id', '=', partnerId).executeTakeFirst();
    return row?.progress || undefined;
  }

  /** Progress for many partners at once (the console's listing by readiness). */
  async progressOfMany(partnerIds: readonly string[]): Promise<Map<string, string>> {
    if (partnerIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('readiness_progress')
      .select(['partner_id', 'progress'])
      .where('partner_id', 'in', partnerIds)
      .execute();
    return new Map(rows.filter((r) => r.progress).map((r) => [r.partner_id, r.progress]));
  }

  async saveProgress(dialect: Dialect, partnerId: string, progress: string, at: number): Promise<void> {
    await SAVE.run(this.db, dialect, [partnerId, progress, at]);
  }

  async approvalOf(partnerId: string) {
    return this.db.selectFrom('launch_approvals').selectAll().where('partner_id', '=', partnerId).executeTakeFirst();
  }

  async approvalsOf(partnerIds: readonly string[]) {
    if (partnerIds.length === 0) return [];
    return this.db.selectFrom('launch_approvals').selectAll().where('partner_id', 'in', partnerIds).execute();
  }

  async approve(row: { partner_id: string; approved_by: string; approved_at: number; note: string }): Promise<void> {
    await this.db
      .insertInto('launch_approvals')
      .values(row)
      .onConflict((c) => c.column('partner_id').doUpdateSet({ approved_by: row.approved_by, approved_at: row.approved_at, note: row.note }))
      .execute();
  }

  /** Records a drill, and forgets the partner's finished ones past the newest `keep`: one partner's drills stay bounded. */
  async insertDrill(row: Insertable<ReadinessDrillsTable>, keep: number): Promise<void> {
    await this.db.insertInto('readiness_drills').values(row).execute();
    const newest = this.db
      .selectFrom('readiness_drills')
      .select('id')
      .where('partner_id', '=', row.partner_id)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(keep);
    await this.db
      .deleteFrom('readiness_drills')
      .where('partner_id', '=', row.partner_id)
      .where('state', '<>', 'running')
      .where('id', 'not in', newest)
      .execute();
  }

  async drill(id: string) {
    return this.db.selectFrom('readiness_drills').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A partner's drills, newest first, at most `limit`. */
  async drillsOf(partnerId: string, limit: number) {
    return this.db
      .selectFrom('readiness_drills')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async runningDrill(partnerId: string, kind: string) {
    return this.db
      .selectFrom('readiness_drills')
      .select('id')
      .where('partner_id', '=', partnerId)
      .where('kind', '=', kind)
      .where('state', '=', 'running')
      .executeTakeFirst();
  }

  /** Running drills whose time box ended before `realNow` (to be closed), at most `limit`. */
  async endedDrills(realNow: number, limit: number) {
    return this.db
      .selectFrom('readiness_drills')
      .selectAll()
      .where('state', '=', 'running')
      .where('ends_at', '<=', realNow)
      .limit(limit)
      .execute();
  }

  /** Closes a running drill; false when another closed it first. */
  async closeDrill(id: string, state: string, result: string): Promise<boolean> {
    const r = await this.db
      .updateTable('readiness_drills')
      .set({ state, result })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async saveScore(row: { partner_id: string; score: number; ready: number; scored_at: number }): Promise<void> {
    await this.db
      .insertInto('readiness_scores')
      .values(row)
      .onConflict((c) => c.column('partner_id').doUpdateSet({ score: row.score, ready: row.ready, scored_at: row.scored_at }))
      .execute();
  }

  async forgetScore(partnerId: string): Promise<void> {
    await this.db.deleteFrom('readiness_scores').where('partner_id', '=', partnerId).execute();
  }

  /** A page of partners, most ready first, and how many are scored. */
  async ranking(limit: number, offset: number) {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('readiness_scores')
        .select('partner_id')
        // Both descending: the (score, partner_id) index read backwards.
        .orderBy('score', 'desc')
        .orderBy('partner_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('readiness_scores')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async withdraw(partnerId: string): Promise<number> {
    const result = await this.db.deleteFrom('launch_approvals').where('partner_id', '=', partnerId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
