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
}

declare module '../platform/db/database.js' {
  interface Tables {
    leads: LeadsTable;
    lead_events: LeadEventsTable;
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
