import { sql } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { Json } from '../platform/values.js';

/** The subscription tables (what each partner is subscribed to, and its change requests) and their migrations. */

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
  subscription_types: Json<SubscriptionType[]>;
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
    await db.schema
      .createIndex('subscription_requests_partner')
      .on('subscription_requests')
      .columns(['partner_id', 'created_at'])
      .execute();
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
