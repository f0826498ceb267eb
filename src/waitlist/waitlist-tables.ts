import { sql } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { Json } from '../platform/values.js';
import type { WaitlistConfig } from './waitlist-rules.js';

/** Party-size buckets of the wait estimates (docs/contract/waitlist.md §4.3). */
export const BUCKETS = ['1-2', '3-4', '5-6', '7+'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Visit states; the first three are active (a party in line, told its table is ready, or on its way). */
export const ACTIVE_STATES = ['WAITING', 'NOTIFIED', 'ON_MY_WAY'] as const;
export const TERMINAL_STATES = ['SEATED', 'CANCELED', 'NO_SHOW', 'EXPIRED'] as const;
export type VisitState = (typeof ACTIVE_STATES)[number] | (typeof TERMINAL_STATES)[number];

/** A restaurant's waitlist as the operator configures it, and its live open/closed override. */
export interface WaitlistRestaurantsTable {
  business_id: string;
  /** JSON WaitlistConfig. */
  config: Json<WaitlistConfig>;
  /** The restaurant side's switch: OPEN follows the hours; CLOSED with a reason closes it. */
  manual_state: 'OPEN' | 'CLOSED';
  closed_reason: string | null;
  /** The next queue position handed out (positions only grow, so concurrent joins never share one). */
  next_position: number;
  /** pbs time the seating pace last advanced this queue to. */
  advanced_at: number;
  updated_at: number;
}

export interface WaitlistVisitsTable {
  id: string;
  business_id: string;
  /** The partner that created it; null for walk-ins added by the restaurant. */
  partner_id: string | null;
  kind: 'QUEUE' | 'ON_MY_WAY' | 'WALK_IN';
  state: VisitState;
  phone: string | null;
  name: string;
  party_size: number;
  bucket: Bucket;
  seating_area_preference: string;
  party_notes: string;
  idempotency_token: string | null;
  /** Place in line (queue and walk-ins; on-my-way visits take one when they arrive). */
  position: number | null;
  queue_time: number;
  arrive_by_time: number | null;
  /** The seating window told at joining (ms), answered again for the same idempotency token. */
  expected_min: number | null;
  expected_max: number | null;
  arrival_range_min: number | null;
  arrival_range_max: number | null;
  notified_at: number | null;
  seated_at: number | null;
  canceled_at: number | null;
  no_show_at: number | null;
  expired_at: number | null;
  arrived_at: number | null;
  updated_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    waitlist_restaurants: WaitlistRestaurantsTable;
    waitlist_visits: WaitlistVisitsTable;
  }
}

export const waitlistMigration: PbsMigration = {
  name: '0500_waitlist',
  async up(db) {
    await db.schema
      .createTable('waitlist_restaurants')
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('manual_state', 'text', (c) => c.notNull())
      .addColumn('closed_reason', 'text')
      .addColumn('next_position', 'bigint', (c) => c.notNull())
      .addColumn('advanced_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('waitlist_visits')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('partner_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('phone', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('party_size', 'integer', (c) => c.notNull())
      .addColumn('bucket', 'text', (c) => c.notNull())
      .addColumn('seating_area_preference', 'text', (c) => c.notNull())
      .addColumn('party_notes', 'text', (c) => c.notNull())
      .addColumn('idempotency_token', 'text')
      .addColumn('position', 'bigint')
      .addColumn('queue_time', 'bigint', (c) => c.notNull())
      .addColumn('arrive_by_time', 'bigint')
      .addColumn('expected_min', 'bigint')
      .addColumn('expected_max', 'bigint')
      .addColumn('arrival_range_min', 'integer')
      .addColumn('arrival_range_max', 'integer')
      .addColumn('notified_at', 'bigint')
      .addColumn('seated_at', 'bigint')
      .addColumn('canceled_at', 'bigint')
      .addColumn('no_show_at', 'bigint')
      .addColumn('expired_at', 'bigint')
      .addColumn('arrived_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One active visit per phone and restaurant: concurrent joins with one phone cannot both win.
    await sql`create unique index waitlist_visits_one_active on waitlist_visits (business_id, phone) where state in ('WAITING', 'NOTIFIED', 'ON_MY_WAY')`.execute(
      db,
    );
    // The same idempotency token of a partner names one visit.
    await sql`create unique index waitlist_visits_token on waitlist_visits (partner_id, idempotency_token) where idempotency_token is not null`.execute(
      db,
    );
    // Counts per bucket and "parties ahead" read the index alone.
    await db.schema
      .createIndex('waitlist_visits_queue')
      .on('waitlist_visits')
      .columns(['business_id', 'state', 'bucket', 'position'])
      .execute();
    await db.schema.createIndex('waitlist_visits_phone').on('waitlist_visits').columns(['phone', 'state']).execute();
    await db.schema.createIndex('waitlist_visits_updated').on('waitlist_visits').columns(['state', 'updated_at']).execute();
  },
};
