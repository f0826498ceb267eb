import { sql, type Selectable } from 'kysely';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import type { FaultRulesTable } from './fault-tables.js';
import './fault-tables.js';

export type FaultRule = Selectable<FaultRulesTable>;

export class FaultStore {
  constructor(private readonly db: DbOrTx) {}

  insert(rule: FaultRule) {
    return this.db.insertInto('fault_rules').values(rule).execute();
  }

  /** Live rules (unexpired, with calls left), of one partner or of all, oldest first, at most `limit`. */
  live(now: number, { partnerId, limit }: { partnerId?: string; limit: number }) {
    let q = this.db
      .selectFrom('fault_rules')
      .selectAll()
      .where('expires_at', '>', now)
      .where((eb) => eb.or([eb('remaining', 'is', null), eb('remaining', '>', 0)]));
    if (partnerId !== undefined) q = q.where('partner_id', '=', partnerId);
    return q.orderBy('created_at').orderBy('id').limit(limit).execute();
  }

  async countLive(now: number, partnerId: string): Promise<number> {
    const row = await this.db
      .selectFrom('fault_rules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('partner_id', '=', partnerId)
      .where('expires_at', '>', now)
      .where((eb) => eb.or([eb('remaining', 'is', null), eb('remaining', '>', 0)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Holds the partner's rules until the transaction ends (PostgreSQL: an advisory lock on the
   * partner; SQLite has one writer already), so counting and adding cannot interleave.
   */
  async lockPartner(partnerId: string, dialect: Dialect): Promise<void> {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`fault_rules:${partnerId}`}))`.execute(this.db);
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

  /** Removes the rule (only if it is `partnerId`'s, when given); answers whose it was, or undefined when there was none. */
  async remove(id: string, partnerId?: string): Promise<string | undefined> {
    let q = this.db.deleteFrom('fault_rules').where('id', '=', id);
    if (partnerId !== undefined) q = q.where('partner_id', '=', partnerId);
    return (await q.returning('partner_id').executeTakeFirst())?.partner_id;
  }

  async purgeEnded(now: number): Promise<void> {
    await this.db
      .deleteFrom('fault_rules')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('remaining', '=', 0)]))
      .execute();
  }
}
