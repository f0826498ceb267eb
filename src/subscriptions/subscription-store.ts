import { sql } from 'kysely';
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
  /** Business ids not linked to the partner, refused (JSON list). */
  refused_business_ids: string | null;
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

/**
 * Subscriptions need a partner ↔ business link (issue 13): the requests record ids refused for
 * want of one, and subscriptions made before links were enforced, to businesses the partner is
 * not linked to, are dropped (they could not be removed by the partner any more).
 */
export const subscriptionLinksMigration: PbsMigration = {
  name: '0201_subscriptions_need_links',
  async up(db) {
    await db.schema.alterTable('subscription_requests').addColumn('refused_business_ids', 'text').execute();
    // A one-off cleanup that must see the partners' links; migrations run before any service exists.
    /* eslint-disable pbs/own-tables */
    await sql`delete from business_subscriptions where not exists (
      select 1 from partner_businesses l
      where l.partner_id = business_subscriptions.partner_id and l.business_id = business_subscriptions.business_id)`.execute(db);
    /* eslint-enable pbs/own-tables */
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
