import type { DbOrTx } from '../platform/db/database.js';
import type { SubscriptionRequestsTable, SubscriptionType } from './subscription-tables.js';

/** SQL of subscriptions; the one table behind the new, the allow-list and the listing-management interfaces. */
export class SubscriptionStore {
  constructor(private readonly db: DbOrTx) {}

  async page(partnerId: string, type: SubscriptionType, limit: number, offset: number) {
    const base = this.db.selectFrom('business_subscriptions').where('partner_id', '=', partnerId).where('subscription_type', '=', type);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows =
      limit === 0
        ? []
        : await base
            .select(['business_id', 'subscribed_at'])
            .orderBy('subscribed_at')
            .orderBy('business_id')
            .limit(limit)
            .offset(offset)
            .execute();
    return { total: Number(total.n), rows };
  }

  async count(partnerId: string, type: SubscriptionType): Promise<number> {
    const row = await this.db
      .selectFrom('business_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('partner_id', '=', partnerId)
      .where('subscription_type', '=', type)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async subscribe(partnerId: string, type: SubscriptionType, businessIds: string[], now: number): Promise<void> {
    if (businessIds.length === 0) return;
    await this.db
      .insertInto('business_subscriptions')
      .values(businessIds.map((business_id) => ({ partner_id: partnerId, subscription_type: type, business_id, subscribed_at: now })))
      .onConflict((oc) => oc.columns(['partner_id', 'subscription_type', 'business_id']).doNothing())
      .execute();
  }

  async unsubscribe(partnerId: string, type: SubscriptionType, businessIds: string[]): Promise<void> {
    if (businessIds.length === 0) return;
    await this.db
      .deleteFrom('business_subscriptions')
      .where('partner_id', '=', partnerId)
      .where('subscription_type', '=', type)
      .where('business_id', 'in', businessIds)
      .execute();
  }

  insertRequest(row: SubscriptionRequestsTable) {
    return this.db.insertInto('subscription_requests').values(row).execute();
  }

  findRequest(id: string) {
    return this.db.selectFrom('subscription_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every subscription of the partner to the business, whatever its type. */
  async forget(partnerId: string, businessId: string): Promise<void> {
    await this.db.deleteFrom('business_subscriptions').where('partner_id', '=', partnerId).where('business_id', '=', businessId).execute();
  }

  /** Of `partnerIds`, those with a subscription of `type` to the business. */
  async subscribersAmong(type: SubscriptionType, businessId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('business_subscriptions')
      .select('partner_id')
      .where('business_id', '=', businessId)
      .where('subscription_type', '=', type)
      .execute();
    return rows.map((r) => r.partner_id);
  }

  completeRequest(id: string, outcome: { skipped: string[]; refused: string[] }, now: number) {
    return this.db
      .updateTable('subscription_requests')
      .set({
        status: 'COMPLETED',
        skipped_business_ids: JSON.stringify(outcome.skipped),
        refused_business_ids: JSON.stringify(outcome.refused),
        completed_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  listRequests(partnerId: string, limit: number) {
    return this.db
      .selectFrom('subscription_requests')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
