import { sql, type Generated } from 'kysely';
import type { PbsMigration } from './db/migrate.js';
import type { DbOrTx, Dialect } from './db/database.js';
import { RawStatement } from './db/raw.js';
import { newId } from './ids.js';

/**
 * The outbox. Every change that partners may hear of writes its event here, in the transaction
 * of the change (so an event exists if and only if its change committed); the relay
 * (`EventRelay`) hands unrelayed events to their consumers (webhook fan-out) and marks them.
 */
export interface DomainEventsTable {
  id: string;
  /** What happened, as partners are told: the update's `event_type` (e.g. NEW_EVENT, RESERVATION_CREATED_EVENT). */
  type: string;
  business_id: string;
  /** The one partner this event is for (e.g. the owner of a reservation); null: the partners subscribed to the business. */
  partner_id: string | null;
  /** The update partners receive (JSON), built by the owning family. */
  payload: string;
  occurred_at: number;
  /** When the relay handed the event on; null while it waits. */
  relayed_at: number | null;
  /** The partner request that caused the event, when the request log is on (docs/request-log.md "Links"). */
  request_id: Generated<string | null>;
}

declare module './db/database.js' {
  interface Tables {
    domain_events: DomainEventsTable;
  }
}

export const domainEventsMigration: PbsMigration = {
  name: '0004_domain_events',
  async up(db) {
    await db.schema
      .createTable('domain_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('partner_id', 'text')
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('domain_events_business').on('domain_events').columns(['business_id', 'occurred_at']).execute();
  },
};

/**
 * Events wait for the relay; those written before the relay existed had nothing to relay to.
 * (Their old internal payloads are no partner update, so they are marked relayed.)
 */
export const eventRelayMigration: PbsMigration = {
  name: '0007_domain_events_relay',
  async up(db) {
    await db.schema.alterTable('domain_events').addColumn('relayed_at', 'bigint').execute();
    await db
      .updateTable('domain_events')
      .set({ relayed_at: sql`occurred_at` })
      .execute();
    await db.schema
      .createIndex('domain_events_unrelayed')
      .on('domain_events')
      .columns(['occurred_at', 'id'])
      .where(sql.ref('relayed_at'), 'is', null)
      .execute();
  },
};

/**
 * Events carry the id of the request that caused them, for the request log's links; most are
 * found by it only while they are new, so the index holds only events that have one.
 */
export const eventRequestMigration: PbsMigration = {
  name: '0008_domain_events_request',
  async up(db) {
    await db.schema.alterTable('domain_events').addColumn('request_id', 'text').execute();
    await db.schema
      .createIndex('domain_events_request')
      .on('domain_events')
      .column('request_id')
      .where(sql.ref('request_id'), 'is not', null)
      .execute();
  },
};

const EVENT_COLUMNS = 'id, type, business_id, partner_id, payload, occurred_at, request_id';
const INSERT_EVENT = new RawStatement(`insert into domain_events (${EVENT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?)`);

export interface DomainEvent {
  type: string;
  businessId: string;
  /** The one partner the event is for; absent or null: the partners subscribed to the business. */
  partnerId?: string | null;
  payload: unknown;
  at: number;
  /** The partner request that caused it, if one did (`PartnerWrite.requestId`, idempotency.ts). */
  requestId?: string | null;
}

/** An event as the relay hands it to consumers. */
export type RelayedEvent = Omit<DomainEventsTable, 'relayed_at' | 'request_id'>;

/**
 * The statement that records an event when `condition` holds, for writers that fold it into a
 * statement of their own: `values` are SQL expressions for id, type, business_id, partner_id,
 * payload (JSON text), occurred_at and request_id (the causing request's id, or null).
 */
export const eventInsertWhen = (values: string, condition: string) =>
  `insert into domain_events (${EVENT_COLUMNS}) select ${values} where ${condition}`;

function eventParameters(id: string, event: DomainEvent): unknown[] {
  return [id, event.type, event.businessId, event.partnerId ?? null, JSON.stringify(event.payload), event.at, event.requestId ?? null];
}

/** The events a partner request caused (written while it was handled), oldest first. */
export function eventsOfRequest(db: DbOrTx, requestId: string) {
  return db
    .selectFrom('domain_events')
    .select(['id', 'type', 'business_id', 'partner_id', 'occurred_at'])
    .where('request_id', '=', requestId)
    .orderBy('occurred_at')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** Writes an event; pass the transaction of the change it records. */
export async function recordEvent(db: DbOrTx, dialect: Dialect, event: DomainEvent): Promise<string> {
  const id = newId();
  await INSERT_EVENT.run(db, dialect, eventParameters(id, event));
  return id;
}
