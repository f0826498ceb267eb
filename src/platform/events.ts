import type { PbsMigration } from './db/migrate.js';
import type { DbOrTx, Dialect } from './db/database.js';
import { RawStatement } from './db/raw.js';
import { newId } from './ids.js';

/**
 * Domain events (reservation made, review edited, …) written in the transaction of the change
 * that causes them: an outbox the webhook deliverer reads, so no event is lost or invented.
 */
export interface DomainEventsTable {
  id: string;
  type: string;
  business_id: string;
  /** The partner whose action caused it, when one did. */
  partner_id: string | null;
  payload: string;
  occurred_at: number;
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

const EVENT_COLUMNS = 'id, type, business_id, partner_id, payload, occurred_at';
const INSERT_EVENT = new RawStatement(`insert into domain_events (${EVENT_COLUMNS}) values (?, ?, ?, ?, ?, ?)`);

export interface DomainEvent {
  type: string;
  businessId: string;
  partnerId?: string | null;
  payload: unknown;
  at: number;
}

/**
 * The statement that records an event when `condition` holds, for writers that fold it into a
 * statement of their own: `values` are SQL expressions for id, type, business_id, partner_id,
 * payload (JSON text) and occurred_at.
 */
export const eventInsertWhen = (values: string, condition: string) =>
  `insert into domain_events (${EVENT_COLUMNS}) select ${values} where ${condition}`;

function eventParameters(id: string, event: DomainEvent): unknown[] {
  return [id, event.type, event.businessId, event.partnerId ?? null, JSON.stringify(event.payload), event.at];
}

/** Writes an event; pass the transaction of the change it records. */
export async function recordEvent(db: DbOrTx, dialect: Dialect, event: DomainEvent): Promise<string> {
  const id = newId();
  await INSERT_EVENT.run(db, dialect, eventParameters(id, event));
  return id;
}
