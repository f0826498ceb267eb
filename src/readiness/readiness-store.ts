import type { DbOrTx, Dialect } from '../platform/db/database.js';
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

  async withdraw(partnerId: string): Promise<number> {
    const result = await this.db.deleteFrom('launch_approvals').where('partner_id', '=', partnerId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
