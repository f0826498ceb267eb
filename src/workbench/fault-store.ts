import type { Selectable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { FaultRulesTable } from './fault-tables.js';
import './fault-tables.js';

export type FaultRule = Selectable<FaultRulesTable>;

export class FaultStore {
  constructor(private readonly db: DbOrTx) {}

  insert(rule: FaultRule) {
    return this.db.insertInto('fault_rules').values(rule).execute();
  }

  /** Live rules (unexpired, with calls left), of one partner or of all. */
  live(now: number, partnerId?: string) {
    let q = this.db
      .selectFrom('fault_rules')
      .selectAll()
      .where('expires_at', '>', now)
      .where((eb) => eb.or([eb('remaining', 'is', null), eb('remaining', '>', 0)]));
    if (partnerId !== undefined) q = q.where('partner_id', '=', partnerId);
    return q.orderBy('created_at').orderBy('id').execute();
  }

  /** Takes one use of a counted rule; false when none is left (another call took the last). */
  async takeOne(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('fault_rules')
      .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
      .where('id', '=', id)
      .where('remaining', '>', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async remove(id: string, partnerId?: string): Promise<boolean> {
    let q = this.db.deleteFrom('fault_rules').where('id', '=', id);
    if (partnerId !== undefined) q = q.where('partner_id', '=', partnerId);
    return Number((await q.executeTakeFirst()).numDeletedRows) === 1;
  }

  async purgeEnded(now: number): Promise<void> {
    await this.db
      .deleteFrom('fault_rules')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('remaining', '=', 0)]))
      .execute();
  }
}
