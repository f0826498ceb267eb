import { sql, type Generated } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import { isOneOf } from '../platform/query.js';

/**
 * Opt-in update types: sent only to endpoints that list them, and only to the partner the
 * change is about. The reservation types tell the partner that made a reservation of changes
 * made elsewhere (the guest on the confirmation page, the restaurant), as booking partners such
 * as Google require; the advertising types tell the owner of a job or program that the job
 * completed or the program changed (also by the pbs clock or the operator), so it need not poll;
 * the waitlist type tells the partner that made a visit how it moves along the line.
 */
export const optInEventTypes = [
  'RESERVATION_CREATED_EVENT',
  'RESERVATION_CANCELED_BY_GUEST_EVENT',
  'RESERVATION_CANCELED_BY_RESTAURANT_EVENT',
  'ADVERTISING_JOB_COMPLETED_EVENT',
  'ADVERTISING_PROGRAM_UPDATED_EVENT',
  'WAITLIST_VISIT_UPDATED_EVENT',
] as const;

/**
 * The update types pbs sends; an endpoint receives the ones enabled for it. The spec's kinds
 * (docs/contract/webhooks.md §6.3) are on by default.
 */
export const webhookEventTypes = [
  'NEW_REVIEW_EVENT',
  'REVIEW_EDITED_EVENT',
  'REVIEW_REMOVED_EVENT',
  'NEW_EVENT',
  'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT',
  'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT',
  'VERIFIED_LICENSE_UPDATE_EVENT',
  'DATA_INGESTION_JOB_UPDATE_EVENT',
  ...optInEventTypes,
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** What a new endpoint receives when it names no types. */
export const defaultEventTypes = webhookEventTypes.filter((t) => !isOneOf(optInEventTypes, t));

/**
 * How the envelope's `time` is written (docs/contract/webhooks.md §6.2): review and license webhooks use a naive
 * ISO time with microseconds, leads seconds with `+00:00`; reservations follow the leads.
 */
export function envelopeTimeStyle(type: string): 'offset' | 'naive' {
  return type === 'NEW_EVENT' ||
    type.startsWith('CONSUMER_PHONE_NUMBER') ||
    type.startsWith('RESERVATION_') ||
    type.startsWith('ADVERTISING_') ||
    type.startsWith('WAITLIST_')
    ? 'offset'
    : 'naive';
}

export type EndpointStatus = 'unverified' | 'verified' | 'failed' | 'gone';

export interface WebhookEndpointsTable {
  partner_id: string;
  url: string;
  client_id: string;
  event_types: string;
  status: EndpointStatus;
  status_reason: string | null;
  verified_at: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  created_at: number;
  updated_at: number;
  /** Sandbox: every message is sent twice, each after a random delay (docs/request-log.md "Webhooks"). */
  duplicate_and_reorder: Generated<number>;
}

export interface WebhookMessagesTable {
  id: string;
  business_id: string;
  event_type: string;
  body: string;
  occurred_at: number;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDeliveriesTable {
  id: string;
  message_id: string;
  partner_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  give_up_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_messages: WebhookMessagesTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}

export const webhooksMigration: PbsMigration = {
  name: '0300_webhooks',
  async up(db) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('partner_id', 'text', (c) => c.primaryKey().references('partners.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('verified_at', 'bigint')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('message_id', 'text', (c) => c.notNull().references('webhook_messages.id').onDelete('cascade'))
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('give_up_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_by', 'text')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    // Partial: only pending deliveries are looked up by due time, and settling one removes it.
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .column('next_attempt_at')
      .where(sql.ref('status'), '=', 'pending')
      .execute();
    await db.schema.createIndex('webhook_deliveries_partner').on('webhook_deliveries').columns(['partner_id', 'created_at']).execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('latency_ms', 'double precision', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('response_excerpt', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_at']).execute();
  },
};

/** The operator's attempts-per-minute view reads the attempts of the last minutes. */
export const webhookAttemptsTimeIndexMigration: PbsMigration = {
  name: '0301_webhook_attempts_attempted_at',
  async up(db) {
    await db.schema.createIndex('webhook_attempts_attempted_at').on('webhook_attempts').column('attempted_at').execute();
  },
};

/** The sandbox switch that sends each message twice and out of order. */
export const webhookShuffleMigration: PbsMigration = {
  name: '0302_webhook_duplicate_and_reorder',
  async up(db) {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('duplicate_and_reorder', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};

/** A message's deliveries (the events a request caused, "find anything") are read from an index, not by a scan. */
export const webhookDeliveriesByMessageMigration: PbsMigration = {
  name: '0303_webhook_deliveries_message',
  async up(db) {
    await db.schema.createIndex('webhook_deliveries_message').ifNotExists().on('webhook_deliveries').column('message_id').execute();
  },
};
