import type { PbsMigration } from '../platform/db/migrate.js';
import type { DbOrTx } from '../platform/db/database.js';

export const subscriptionTypes = ['WEBHOOK', 'LISTING_MANAGEMENT', 'YELP_KNOWLEDGE'] as const;
export type SubscriptionType = (typeof subscriptionTypes)[number];

export interface BusinessSubscriptionsTable {
  partner_id: string;
  subscription_type: SubscriptionType;
  business_id: string;
  subscribed_at: number;
}

/** One asynchronous create/delete request of a partner, and what became of it. */
export interface SubscriptionRequestsTable {
  id: string;
  partner_id: string;
  action: 'subscribe' | 'unsubscribe';
  subscription_types: string;
  business_ids: string;
  status: 'PROCESSING' | 'COMPLETED';
  /** Business ids that were not found and were skipped (JSON list). */
  skipped_business_ids: string | null;
  created_at: number;
  completed_at: number | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    business_subscriptions: BusinessSubscriptionsTable;
    subscription_requests: SubscriptionRequestsTable;
  }
}

export const subscriptionsMigration: PbsMigration = {
  name: '0200_subscriptions',
  async up(db) {
    await db.schema
      .createTable('business_subscriptions')
      .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
      .addColumn('subscription_type', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull().references('businesses.id').onDelete('cascade'))
      .addColumn('subscribed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('business_subscriptions_pk', ['partner_id', 'subscription_type', 'business_id'])
      .execute();
    await db.schema
      .createIndex('business_subscriptions_listing')
      .on('business_subscriptions')
      .columns(['partner_id', 'subscription_type', 'subscribed_at'])
      .execute();
    await db.schema
      .createIndex('business_subscriptions_business')
      .on('business_subscriptions')
      .columns(['business_id', 'subscription_type'])
      .execute();
    await db.schema
      .createTable('subscription_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subscription_types', 'text', (c) => c.notNull())
      .addColumn('business_ids', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('skipped_business_ids', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema.createIndex('subscription_requests_partner').on('subscription_requests').columns(['partner_id', 'created_at']).execute();
  },
};

/** SQL of subscriptions; the one table behind the new, the allow-list and the listing-management interfaces. */
export class SubscriptionStore {
  constructor(private readonly db: DbOrTx) {}

  async page(partnerId: string, type: SubscriptionType, limit: number, offset: number) {
    const base = this.db.selectFrom('business_subscriptions').where('partner_id', '=', partnerId).where('subscription_type', '=', type);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows =
      limit === 0
        ? []
        : await base.select(['business_id', 'subscribed_at']).orderBy('subscribed_at').orderBy('business_id').limit(limit).offset(offset).execute();
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

  completeRequest(id: string, skipped: string[], now: number) {
    return this.db
      .updateTable('subscription_requests')
      .set({ status: 'COMPLETED', skipped_business_ids: JSON.stringify(skipped), completed_at: now })
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
