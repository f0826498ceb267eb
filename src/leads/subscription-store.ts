import type { Selectable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { LeadWebhookSubscriptionsTable } from './lead-tables.js';
import './lead-tables.js';

export type LeadWebhookSubscription = Selectable<LeadWebhookSubscriptionsTable>;

/** SQL of partners' self-serve lead webhook subscriptions. */
export class SubscriptionStore {
  constructor(private readonly db: DbOrTx) {}

  async insert(subscription: LeadWebhookSubscription, businessIds: string[]): Promise<void> {
    await this.db.insertInto('lead_webhook_subscriptions').values(subscription).execute();
    if (businessIds.length > 0)
      await this.db
        .insertInto('lead_webhook_businesses')
        .values(businessIds.map((business_id) => ({ subscription_id: subscription.id, business_id })))
        .execute();
  }

  get(id: string): Promise<LeadWebhookSubscription | undefined> {
    return this.db.selectFrom('lead_webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The partner's live subscription for a business user, if any. */
  live(partnerId: string, userId: string, now: number): Promise<LeadWebhookSubscription | undefined> {
    return this.db
      .selectFrom('lead_webhook_subscriptions')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async countLive(partnerId: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('lead_webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('partner_id', '=', partnerId)
      .where('deleted_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async markDeleted(id: string, now: number): Promise<void> {
    await this.db.updateTable('lead_webhook_subscriptions').set({ deleted_at: now }).where('id', '=', id).execute();
  }

  /**
   * Partners with a live subscription covering the business: of a business user who manages it
   * now (`managers`), unrestricted or listing it.
   */
  async partnersCovering(businessId: string, managers: string[], now: number): Promise<string[]> {
    if (managers.length === 0) return [];
    const rows = await this.db
      .selectFrom('lead_webhook_subscriptions as s')
      .select('s.partner_id')
      .distinct()
      .where('s.user_id', 'in', managers)
      .where('s.deleted_at', 'is', null)
      .where('s.expires_at', '>', now)
      .where((eb) =>
        eb.or([
          eb('s.restricted', '=', 0),
          eb('s.id', 'in', (sub) =>
            sub.selectFrom('lead_webhook_businesses').select('subscription_id').where('business_id', '=', businessId),
          ),
        ]),
      )
      .execute();
    return rows.map((r) => r.partner_id);
  }
}
