import type { Business } from '../businesses/business-record.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { ReadCache } from '../platform/read-cache.js';
import { seconds, type PartyInput } from './waitlist-input.js';
import { bucketOf, DEFAULT_CONFIG, estimate, waitlistState, type TableInventory, type WaitlistConfig } from './waitlist-rules.js';
import { WaitlistStore, type Visit, type WaitlistRestaurant } from './waitlist-store.js';
import { ACTIVE_STATES, BUCKETS, TERMINAL_STATES, type Bucket, type VisitState } from './waitlist-tables.js';
import { isOneOf } from '../platform/query.js';
import { fromJson, toJson } from '../platform/values.js';

/** The opt-in webhook type of visit changes, sent to the partner that made the visit. */
export const VISIT_EVENT_TYPE = 'WAITLIST_VISIT_UPDATED_EVENT';
/** The change-feed topic of restaurants' lines and settings. */
const WAITLIST_TOPIC = 'waitlist';
/** How long a status snapshot is trusted without news of a change. */
const SNAPSHOT_MS = 5_000;

export interface WaitlistOptions {
  onEventsCommitted?: () => void;
  /** The restaurant's reservation tables and turn times, for a pace taken from them; undefined when it takes no reservations. */
  inventoryOf?: (businessId: string) => Promise<TableInventory | undefined>;
}

/** What status reads need of a restaurant: its record, configuration, switch and line counts. */
export interface LineSnapshot {
  business: Business;
  row: WaitlistRestaurant;
  config: WaitlistConfig;
  waiting: Record<Bucket, number>;
}

/**
 * What the waitlist's use cases share (spec part 3; docs/contract/waitlist.md §4): a restaurant's line as read and
 * as locked, visits made, moved and described, their events, and the per-restaurant snapshots
 * with their change feed. The partner side (waitlist-partner.ts), the restaurant side
 * (waitlist-restaurant.ts) and the pace (waitlist-pace.ts) act through it.
 */
export class WaitlistLines {
  /**
   * Snapshots kept per business. Forgotten when this process changes the line (after the
   * commit), when another process does (the change feed), and after SNAPSHOT_MS regardless
   * (business records changed elsewhere).
   */
  readonly snapshots: ReadCache<LineSnapshot>;

  constructor(
    readonly database: Database,
    readonly clock: Clock,
    readonly businesses: BusinessDirectory,
    private readonly changes: ChangeFeed,
    readonly options: WaitlistOptions = {},
  ) {
    this.snapshots = new ReadCache(changes, WAITLIST_TOPIC, { ttlMs: SNAPSHOT_MS, maxEntries: 20_000 });
  }

  /** Forgets what is kept of one restaurant, or of all (a business record changed, or changes were missed). */
  forget(businessId?: string): void {
    this.snapshots.forget(businessId);
  }

  /** Announces a change of a restaurant's line in its transaction, for the other processes' snapshots. */
  publish(trx: DbOrTx, businessId: string) {
    return this.changes.publish(trx, WAITLIST_TOPIC, businessId);
  }

  eventsCommitted(): void {
    this.options.onEventsCommitted?.();
  }

  store(db: DbOrTx = this.database.db) {
    return new WaitlistStore(db, this.database.dialect);
  }

  /** A restaurant's row before the operator configured anything. */
  defaults(businessId: string, now: number): WaitlistRestaurant {
    return {
      business_id: businessId,
      config: toJson(DEFAULT_CONFIG),
      manual_state: 'OPEN',
      closed_reason: null,
      next_position: 1,
      advanced_at: now,
      updated_at: now,
    };
  }

  /** The restaurant's row and configuration (the defaults when the operator set none). */
  async restaurant(businessId: string, db: DbOrTx = this.database.db) {
    const row = (await this.store(db).restaurant(businessId)) ?? this.defaults(businessId, this.clock.now());
    return { row, config: fromJson(row.config) };
  }

  /** Everything the state and estimates depend on, read through `db`. */
  async situation(businessId: string, db: DbOrTx = this.database.db) {
    const business = await this.businesses.get(businessId, db);
    const { row, config } = await this.restaurant(business.id, db);
    const waiting = await this.store(db).waitingByBucket(business.id);
    const total = BUCKETS.reduce((n, b) => n + waiting[b], 0);
    const state = waitlistState(business, config, { state: row.manual_state, reason: row.closed_reason }, total, this.clock.now());
    return { business, row, config, waiting, total, state };
  }

  /**
   * Takes the restaurant's next position (its lock on PostgreSQL) and judges the line as it is
   * under that lock: the row comes back from the same statement, the business was read before.
   */
  async lockedLine(store: WaitlistStore, business: Business, now: number) {
    const { position, row } = await store.takePosition(this.defaults(business.id, now));
    const config = fromJson(row.config);
    const waiting = await store.waitingByBucket(business.id);
    const total = BUCKETS.reduce((n, b) => n + waiting[b], 0);
    const state = waitlistState(business, config, { state: row.manual_state, reason: row.closed_reason }, total, now);
    return { position, config, waiting, total, state };
  }

  newVisit(partnerId: string | null, businessId: string, kind: Visit['kind'], state: VisitState, input: PartyInput, now: number): Visit {
    return {
      id: newId(),
      business_id: businessId,
      partner_id: partnerId,
      kind,
      state,
      phone: input.phone,
      name: input.name,
      party_size: input.party_size,
      bucket: bucketOf(input.party_size),
      seating_area_preference: '',
      party_notes: input.party_notes,
      idempotency_token: null,
      position: null,
      queue_time: now,
      arrive_by_time: null,
      expected_min: null,
      expected_max: null,
      arrival_range_min: null,
      arrival_range_max: null,
      notified_at: null,
      seated_at: null,
      canceled_at: null,
      no_show_at: null,
      expired_at: null,
      arrived_at: null,
      updated_at: now,
    };
  }

  /**
   * A visit as partners and the restaurant side read it: the join fields, the state, a time per
   * reached state, parties ahead and the current estimate.
   */
  async describe(visit: Visit) {
    let ahead = 0;
    let expected = { min: visit.expected_min, max: visit.expected_max };
    if (visit.state === 'WAITING' && visit.position !== null) {
      const { config } = await this.restaurant(visit.business_id);
      ahead = await this.store().aheadOf(visit.business_id, visit.bucket, visit.position);
      const e = estimate(config.pace, visit.bucket, ahead, true);
      // From now, or from when the party joined if the sandbox clock was set back before that:
      // a party is never expected before it joined.
      const from = Math.max(this.clock.now(), visit.queue_time);
      expected = { min: from + e.min_wait * 60_000, max: from + (e.max_wait ?? 2 * e.est_wait - e.min_wait) * 60_000 };
    }
    const live = visit.state === 'WAITING' || visit.state === 'ON_MY_WAY';
    return {
      visit_id: visit.id,
      business_id: visit.business_id,
      visit_type: visit.kind === 'ON_MY_WAY' ? 'ON_MY_WAY' : 'WAITLIST',
      state: visit.state,
      party_size: visit.party_size,
      name: visit.name,
      phone: visit.phone,
      seating_area_preference: visit.seating_area_preference,
      party_notes: visit.party_notes,
      queue_time: seconds(visit.queue_time),
      arrive_by_time: seconds(visit.arrive_by_time),
      expected_seating_time_min: live ? seconds(expected.min) : null,
      expected_seating_time_max: live ? seconds(expected.max) : null,
      parties_ahead: ahead,
      arrival_range_min: visit.arrival_range_min,
      arrival_range_max: visit.arrival_range_max,
      arrived_time: seconds(visit.arrived_at),
      notified_time: seconds(visit.notified_at),
      seated_time: seconds(visit.seated_at),
      canceled_time: seconds(visit.canceled_at),
      no_show_time: seconds(visit.no_show_at),
      expired_time: seconds(visit.expired_at),
    };
  }

  /**
   * Moves a visit to `state` (the partner's cancel and the restaurant side): from an active state
   * only, with the state's time and the event, in one transaction.
   */
  async move(visitId: string, state: VisitState, write?: PartnerWrite, from: readonly VisitState[] = ACTIVE_STATES) {
    const now = this.clock.now();
    await this.database
      .transact(async (trx) => {
        const store = this.store(trx);
        const visit = await store.lockVisit(visitId);
        if (!visit) throw apiError('NOT_FOUND', 'Not Found: no such visit');
        if (isOneOf(TERMINAL_STATES, visit.state))
          throw apiError('VISIT_ALREADY_IN_TERMINAL_STATE', `The visit is already ${visit.state}.`);
        const change = { state, updated_at: now, ...stateTime(state, now) };
        if (!from.includes(visit.state) || !(await store.moveVisit(visit.id, from, change))) {
          throw apiError('CONFLICT', `A ${visit.state} visit cannot become ${state}.`);
        }
        await answerWithinChange(trx, write, 204, undefined);
        if (visit.partner_id !== null)
          await recordEvent(trx, this.database.dialect, this.visitEvent({ ...visit, ...change }, state, now, write?.requestId));
        await this.publish(trx, visit.business_id);
        return visit.business_id;
      })
      .then((businessId) => this.forget(businessId));
    this.eventsCommitted();
  }

  /** `requestId`: the partner request that made the change, if one did. */
  visitEvent(visit: Visit, change: string, now: number, requestId?: string): DomainEvent {
    return {
      type: VISIT_EVENT_TYPE,
      requestId,
      businessId: visit.business_id,
      partnerId: visit.partner_id,
      at: now,
      payload: {
        event_type: VISIT_EVENT_TYPE,
        event_id: newId(),
        visit_id: visit.id,
        change,
        state: visit.state,
        party_size: visit.party_size,
        updated_at: toIsoOffset(now),
      },
    };
  }
}

/** The column recording when a visit reached `state`. */
export function stateTime(state: VisitState, at: number): Partial<Visit> {
  switch (state) {
    case 'NOTIFIED':
      return { notified_at: at };
    case 'SEATED':
      return { seated_at: at };
    case 'CANCELED':
      return { canceled_at: at };
    case 'NO_SHOW':
      return { no_show_at: at };
    case 'EXPIRED':
      return { expired_at: at };
    default:
      return {};
  }
}
