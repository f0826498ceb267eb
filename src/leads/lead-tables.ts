import type { PbsMigration } from '../platform/db/migrate.js';

/**
 * A lead: a consumer's request for a quote to one business, and the conversation that follows
 * (docs/contract/leads.md). Every lead webhook pbs sends has one behind its `lead_id`.
 */
export interface LeadsTable {
  id: string;
  business_id: string;
  /** The message thread's own id (the original shows one beside the lead id). */
  conversation_id: string;
  /** The consumer: the `user_id` and `user_display_name` ("First L.") of their events. */
  consumer_id: string;
  consumer_name: string;
  /** The request-a-quote answers, as JSON text in the Get Lead `project` shape. */
  project: string;
  /** The local part of the lead's masked e-mail address. */
  email_local: string;
  /** The consumer's phone, once they opted in to phone contact (and until they opt out). */
  phone_number: string | null;
  time_created: number;
  last_event_time: number;
  /** The sequence number of the newest event (events are numbered 1, 2, … per lead). */
  last_seq: number;
  /** Events up to this sequence number have been read by the business (0: none). */
  read_through: number;
  /** How the business replied outside the conversation (`PHONE` or `EMAIL`), once marked. */
  replied_as: string | null;
}

/** One event of a lead's conversation, in the order it is shown. */
export interface LeadEventsTable {
  lead_id: string;
  seq: number;
  /** The event id; a text and its attachment share one, and a webhook's `event_id` is its event's id. */
  id: string;
  time_created: number;
  event_type: string;
  /** CONSUMER or BIZ. */
  user_type: string;
  user_id: string;
  user_display_name: string;
  /** `event_content` as JSON text: `{text?, fallback_text, attachments?}`. */
  content: string;
  /** Where a BIZ event was written (`API-SELF` through the Leads API); null for the others. */
  channel: string | null;
  /** The webhook message (`webhook-id`) of the NEW_EVENT that announced it; the portal links the two. */
  message_id: string | null;
}

/**
 * A partner's self-serve subscription to a business user's lead webhooks (the original's
 * `POST /v3/webhooks`): lead events of the businesses it covers go to the partner's endpoint
 * until it expires (14 days) or is deleted.
 */
export interface LeadWebhookSubscriptionsTable {
  id: string;
  partner_id: string;
  user_id: string;
  webhook_url: string;
  /** 1: only the businesses listed in lead_webhook_businesses; 0: every business the user manages, as it changes. */
  restricted: number;
  created_at: number;
  expires_at: number;
  deleted_at: number | null;
}

/** The businesses a restricted subscription covers. */
export interface LeadWebhookBusinessesTable {
  subscription_id: string;
  business_id: string;
}

declare module '../platform/db/database.js' {
  interface Tables {
    leads: LeadsTable;
    lead_events: LeadEventsTable;
    lead_webhook_subscriptions: LeadWebhookSubscriptionsTable;
    lead_webhook_businesses: LeadWebhookBusinessesTable;
  }
}

export const leadsMigration: PbsMigration = {
  name: '1000_leads',
  async up(db) {
    await db.schema
      .createTable('leads')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('conversation_id', 'text', (c) => c.notNull())
      .addColumn('consumer_id', 'text', (c) => c.notNull())
      .addColumn('consumer_name', 'text', (c) => c.notNull())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('email_local', 'text', (c) => c.notNull())
      .addColumn('phone_number', 'text')
      .addColumn('time_created', 'bigint', (c) => c.notNull())
      .addColumn('last_event_time', 'bigint', (c) => c.notNull())
      .addColumn('last_seq', 'integer', (c) => c.notNull())
      .addColumn('read_through', 'integer', (c) => c.notNull())
      .addColumn('replied_as', 'text')
      .execute();
    // A business's leads, newest first (lead_ids pages through them).
    await db.schema.createIndex('leads_business').on('leads').columns(['business_id', 'time_created', 'id']).execute();
    await db.schema
      .createTable('lead_events')
      .addColumn('lead_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('time_created', 'bigint', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('user_type', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('user_display_name', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('channel', 'text')
      .addPrimaryKeyConstraint('lead_events_pk', ['lead_id', 'seq'])
      .execute();
    await db.schema.createIndex('lead_events_id').on('lead_events').columns(['lead_id', 'id']).execute();
  },
};

export const leadWebhookSubscriptionsMigration: PbsMigration = {
  name: '1010_lead_webhook_subscriptions',
  async up(db) {
    await db.schema
      .createTable('lead_webhook_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('webhook_url', 'text', (c) => c.notNull())
      .addColumn('restricted', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    // A partner's subscriptions (one live per business user), and those of a business's managers (the fan-out).
    await db.schema
      .createIndex('lead_webhook_subscriptions_partner')
      .on('lead_webhook_subscriptions')
      .columns(['partner_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('lead_webhook_subscriptions_user')
      .on('lead_webhook_subscriptions')
      .columns(['user_id', 'expires_at'])
      .execute();
    await db.schema
      .createTable('lead_webhook_businesses')
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('lead_webhook_businesses_pk', ['subscription_id', 'business_id'])
      .execute();
    await db.schema
      .createIndex('lead_webhook_businesses_business')
      .on('lead_webhook_businesses')
      .columns(['business_id', 'subscription_id'])
      .execute();
  },
};

export const leadEventMessagesMigration: PbsMigration = {
  name: '1020_lead_event_messages',
  async up(db) {
    await db.schema.alterTable('lead_events').addColumn('message_id', 'text').execute();
  },
};
