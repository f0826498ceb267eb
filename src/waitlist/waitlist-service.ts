import type { Business } from '../businesses/business-record.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Principal } from '../platform/auth/principal.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, type PendingIdempotency } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { ReadCache } from '../platform/read-cache.js';
import {
  bucketOf,
  DEFAULT_CONFIG,
  estimate,
  MANUAL_CLOSED_REASONS,
  MAX_ACTIVE_ON_MY_WAY,
  mergeConfig,
  ON_MY_WAY_GRACE_MS,
  paceFromInventory,
  type TableInventory,
  VISIT_RETENTION_MS,
  waitlistState,
  type WaitlistConfig,
} from './waitlist-rules.js';
import { WaitlistStore, type Visit, type WaitlistRestaurant } from './waitlist-store.js';
import { ACTIVE_STATES, BUCKETS, TERMINAL_STATES, type Bucket, type VisitState } from './waitlist-tables.js';

/** The opt-in webhook type of visit changes, sent to the partner that made the visit. */
export const VISIT_EVENT_TYPE = 'WAITLIST_VISIT_UPDATED_EVENT';
/** The change-feed topic of restaurants' lines and settings. */
const WAITLIST_TOPIC = 'waitlist';
/** How long a status snapshot is trusted without news of a change. */
const SNAPSHOT_MS = 5_000;
/** The key of a restaurant's snapshot in its group (the group is the business). */
const SNAPSHOT = 'status';

const E164 = /^\+[1-9][0-9]{6,14}$/;
/** Size caps of a visit's text (the documented schema's maxLength) and party (the operator's max_party_size is at most 100). */
const MAX_NAME = 100;
const MAX_NOTES = 500;
const MAX_PARTY_SIZE = 100;
const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
const invalid = (field: string, message: string): never => {
  throw apiError('VALIDATION_ERROR', message, { field });
};

interface PartyInput {
  phone: string;
  party_size: number;
  name: string;
  party_notes: string;
}

/** Checks the fields every visit request shares (400 when malformed; facts §4.2). */
function party(body: Record<string, unknown>): PartyInput {
  if (typeof body.phone !== 'string' || !E164.test(body.phone)) invalid('phone', 'phone must be an E.164 number such as +14155550123');
  if (!Number.isInteger(body.party_size) || (body.party_size as number) < 1) invalid('party_size', 'party_size must be a whole number of at least 1');
  if (typeof body.name !== 'string' || body.name.trim() === '') invalid('name', 'name is required');
  if ((body.name as string).length > MAX_NAME) invalid('name', `name is longer than ${MAX_NAME} characters`);
  if ((body.party_size as number) > MAX_PARTY_SIZE) invalid('party_size', `party_size is at most ${MAX_PARTY_SIZE}`);
  const notes = body.party_notes ?? '';
  if (typeof notes !== 'string') invalid('party_notes', 'party_notes must be text');
  if ((notes as string).length > MAX_NOTES) invalid('party_notes', `party_notes is longer than ${MAX_NOTES} characters`);
  return { phone: body.phone as string, party_size: body.party_size as number, name: (body.name as string).trim(), party_notes: notes as string };
}

/**
 * The waitlist (spec part 3; facts.md §4): a live line per restaurant that the restaurant side
 * (the operator API) opens, closes, fills with walk-ins, notifies and seats, and that the pbs
 * clock advances at the configured seating pace. Partners read its state and estimates, join it,
 * announce on-my-way visits, and follow and cancel their visits.
 */
export class WaitlistService {
  /**
   * What status reads need of a restaurant, kept per business: its record, configuration, switch
   * and line counts. Forgotten when this process changes the line (after the commit), when
   * another process does (the change feed), and after SNAPSHOT_MS regardless (business records
   * changed elsewhere).
   */
  private readonly snapshots: ReadCache<{ business: Business; row: WaitlistRestaurant; config: WaitlistConfig; waiting: Record<Bucket, number> }>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
    private readonly changes: ChangeFeed,
    private readonly options: {
      onEventsCommitted?: () => void;
      /** The restaurant's reservation tables and turn times, for a pace taken from them; undefined when it takes no reservations. */
      inventoryOf?: (businessId: string) => Promise<TableInventory | undefined>;
    } = {},
  ) {
    this.snapshots = new ReadCache(changes, WAITLIST_TOPIC, { ttlMs: SNAPSHOT_MS, maxEntries: 20_000 });
  }

  /** Forgets what is kept of one restaurant, or of all (a business record changed, or changes were missed). */
  forget(businessId?: string): void {
    this.snapshots.forget(businessId);
  }

  /** Announces a change of a restaurant's line in its transaction, for the other processes' snapshots. */
  private publish(trx: DbOrTx, businessId: string) {
    return this.changes.publish(trx, WAITLIST_TOPIC, businessId);
  }

  store(db: DbOrTx = this.database.db) {
    return new WaitlistStore(db, this.database.dialect);
  }

  private defaults(businessId: string, now: number): WaitlistRestaurant {
    return { business_id: businessId, config: JSON.stringify(DEFAULT_CONFIG), manual_state: 'OPEN', closed_reason: null, next_position: 1, advanced_at: now, updated_at: now };
  }

  /** The restaurant's row and configuration (the defaults when the operator set none). */
  private async restaurant(businessId: string, db: DbOrTx = this.database.db) {
    const row = (await this.store(db).restaurant(businessId)) ?? this.defaults(businessId, this.clock.now());
    return { row, config: JSON.parse(row.config) as WaitlistConfig };
  }

  /** Everything the state and estimates depend on, read through `db`. */
  private async situation(businessId: string, db: DbOrTx = this.database.db) {
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
  private async lockedLine(store: WaitlistStore, business: Business, now: number) {
    const { position, row } = await store.takePosition(this.defaults(business.id, now));
    const config = JSON.parse(row.config) as WaitlistConfig;
    const waiting = await store.waitingByBucket(business.id);
    const total = BUCKETS.reduce((n, b) => n + waiting[b], 0);
    const state = waitlistState(business, config, { state: row.manual_state, reason: row.closed_reason }, total, now);
    return { position, config, waiting, total, state };
  }

  // ---- partner reads -----------------------------------------------------------------------

  /** `GET /v3/businesses/{business_id}/waitlist/status` (facts §4.3), from the restaurant's snapshot. */
  async status(businessId: string) {
    const { business, row, config, waiting } =
      this.snapshots.peek(businessId, SNAPSHOT) ??
      (await this.snapshots.get(businessId, SNAPSHOT, async () => {
        const { business, row, config, waiting } = await this.situation(businessId);
        return { business, row, config, waiting };
      }));
    const total = BUCKETS.reduce((n, b) => n + waiting[b], 0);
    const state = waitlistState(business, config, { state: row.manual_state, reason: row.closed_reason }, total, this.clock.now());
    return {
      business_id: business.id,
      ...state,
      wait_estimates: Object.fromEntries(BUCKETS.map((b) => [b, estimate(config.pace, b, waiting[b], total > 0)])),
    };
  }

  /** `GET /v3/businesses/{business_id}/waitlist/info` (facts §4.3). */
  async info(businessId: string) {
    const business = await this.businesses.requireRef(businessId);
    const { config } = await this.restaurant(business.id);
    return { join_radius: config.join_radius, join_radius_unit: config.join_radius_unit, max_party_size: config.max_party_size, seating_areas: config.seating_areas };
  }

  // ---- joining -----------------------------------------------------------------------------

  /**
   * `POST /v3/businesses/{business_id}/waitlist/visits` → 201. The restaurant's row is locked
   * first (its next position taken), so concurrent joins are judged one after the other.
   */
  async join(principal: Principal, businessId: string, body: Record<string, unknown>, pending?: PendingIdempotency) {
    const input = party(body);
    const preference = body.seating_area_preference ?? '';
    if (typeof preference !== 'string') return invalid('seating_area_preference', 'seating_area_preference must be text');
    const token = body.idempotency_token;
    if (token !== undefined && (typeof token !== 'string' || token === '' || token.length > 128)) invalid('idempotency_token', 'idempotency_token must be 1 to 128 characters');
    const business = await this.businesses.get(businessId);
    if (typeof token === 'string') {
      const earlier = await this.store().visitByToken(principal.partnerId, token);
      if (earlier) return this.joinAnswer(earlier);
    }
    const now = this.clock.now();
    const { answer, event } = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const { position, config, waiting, total, state } = await this.lockedLine(store, business, now);
      this.refuseClosed(state);
      if (input.party_size > config.max_party_size) throw apiError('PARTY_SIZE_TOO_LARGE', `This waitlist takes parties of up to ${config.max_party_size}.`);
      if (preference !== '' && !Object.hasOwn(config.seating_areas, preference)) {
        throw apiError('INVALID_SEATING_PREFERENCE', `seating_area_preference must be one of: ${Object.keys(config.seating_areas).join(', ') || '(none offered)'}`);
      }
      if (state.state !== 'OPEN') throw apiError('CURRENTLY_NO_WAIT', 'The restaurant has no wait: come in, or announce an on-my-way visit.');
      await this.refuseTaken(store, input.phone, business.id);
      const bucket = bucketOf(input.party_size);
      const e = estimate(config.pace, bucket, waiting[bucket], total > 0);
      const visit: Visit = {
        ...this.newVisit(principal.partnerId, business.id, 'QUEUE', 'WAITING', input, now),
        seating_area_preference: preference,
        idempotency_token: (token as string | undefined) ?? null,
        position,
        expected_min: now + e.min_wait * 60_000,
        expected_max: now + (e.max_wait ?? e.est_wait + (e.est_wait - e.min_wait)) * 60_000,
      };
      visit.arrive_by_time = visit.expected_min;
      if (!(await store.insertVisit(visit))) await this.refuseTaken(store, input.phone, business.id, true);
      const result = this.joinAnswer(visit);
      await answerWithinChange(trx, pending, 201, result);
      const joined = this.visitEvent(visit, 'JOINED', now);
      await recordEvent(trx, this.database.dialect, joined);
      await this.publish(trx, business.id);
      return { answer: result, event: joined };
    });
    this.forget(business.id);
    if (event) this.options.onEventsCommitted?.();
    return answer;
  }

  /**
   * `POST /v3/businesses/{business_id}/waitlist/on-my-way` → 201: open with no wait, an arrival
   * window within 30 minutes, and fewer than 9 active on-my-way visits (the 10th: 409 CONFLICT).
   */
  async onMyWay(principal: Principal, businessId: string, body: Record<string, unknown>, pending?: PendingIdempotency) {
    const input = party(body);
    const min = body.arrival_range_min;
    const max = body.arrival_range_max;
    if (min === undefined) invalid('arrival_range_min', 'arrival_range_min is required');
    if (max === undefined) invalid('arrival_range_max', 'arrival_range_max is required');
    if (!Number.isInteger(min) || !Number.isInteger(max) || (min as number) < 0 || (max as number) < (min as number) || (max as number) > 30) {
      throw apiError('INVALID_ETA', 'arrival_range_min and arrival_range_max are whole minutes, 0 ≤ min ≤ max ≤ 30.');
    }
    const business = await this.businesses.get(businessId);
    const now = this.clock.now();
    return this.database
      .transact(async (trx) => {
        const store = this.store(trx);
        // The restaurant's lock (the position goes unused: on-my-way visits take theirs on arrival).
        const { config, state } = await this.lockedLine(store, business, now);
        this.refuseClosed(state);
        if (input.party_size > config.max_party_size) throw apiError('PARTY_SIZE_TOO_LARGE', `This waitlist takes parties of up to ${config.max_party_size}.`);
        if (state.state === 'OPEN') throw apiError('CURRENTLY_HAS_WAIT', 'The restaurant has a wait: join the waitlist instead.');
        if (state.state !== 'ON_MY_WAY') throw apiError('RESTAURANT_NOT_OPEN', 'The restaurant takes no on-my-way visits now.');
        if ((await store.countActiveOnMyWay(business.id)) >= MAX_ACTIVE_ON_MY_WAY) {
          throw apiError('CONFLICT', `The restaurant already expects ${MAX_ACTIVE_ON_MY_WAY} parties on their way; try again later.`);
        }
        await this.refuseTaken(store, input.phone, business.id);
        const visit: Visit = {
          ...this.newVisit(principal.partnerId, business.id, 'ON_MY_WAY', 'ON_MY_WAY', input, now),
          arrival_range_min: min as number,
          arrival_range_max: max as number,
          arrive_by_time: now + (max as number) * 60_000,
        };
        if (!(await store.insertVisit(visit))) await this.refuseTaken(store, input.phone, business.id, true);
        const answer = { visit_id: visit.id, party_size: visit.party_size, arrive_by_time: seconds(visit.arrive_by_time) };
        await answerWithinChange(trx, pending, 201, answer);
        await recordEvent(trx, this.database.dialect, this.visitEvent(visit, 'ON_MY_WAY', now));
        return answer;
      })
      .finally(() => this.options.onEventsCommitted?.());
  }

  /** Closed for any reason → RESTAURANT_NOT_OPEN, except remote entry disabled → REMOTE_ENTRY_DENIED. */
  private refuseClosed(state: ReturnType<typeof waitlistState>) {
    if (state.state !== 'CLOSED' || state.closed_reason === 'no_current_wait') return;
    if (state.closed_reason === 'remote_entry_disabled') throw apiError('REMOTE_ENTRY_DENIED', 'This restaurant does not take remote entries.');
    throw apiError('RESTAURANT_NOT_OPEN', `The waitlist is closed (${state.closed_reason}).`);
  }

  /** ALREADY_IN_LINE for an active visit of the phone here; SCHEDULE_CONFLICT for one elsewhere. */
  private async refuseTaken(store: WaitlistStore, phone: string, businessId: string, lostRace = false) {
    const active = await store.activeVisitsOfPhone(phone);
    if (lostRace || active.some((v) => v.business_id === businessId)) throw apiError('ALREADY_IN_LINE', 'This phone number already has a visit in line here.');
    if (active.length > 0) throw apiError('SCHEDULE_CONFLICT', 'This phone number is already in line at another restaurant.');
  }

  private newVisit(partnerId: string | null, businessId: string, kind: Visit['kind'], state: VisitState, input: PartyInput, now: number): Visit {
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

  /** The join answer (facts §4.3): integer Unix seconds. */
  private joinAnswer(visit: Visit) {
    return {
      visit_id: visit.id,
      queue_time: seconds(visit.queue_time),
      party_size: visit.party_size,
      arrive_by_time: seconds(visit.arrive_by_time),
      expected_seating_time_min: seconds(visit.expected_min),
      expected_seating_time_max: seconds(visit.expected_max),
      seating_area_preference: visit.seating_area_preference,
    };
  }

  // ---- visits --------------------------------------------------------------------------------

  private async ownVisit(partnerId: string, visitId: string) {
    const visit = await this.store().visit(visitId);
    if (!visit || visit.partner_id !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such visit');
    return visit;
  }

  /** `GET /v3/visits/{visit_id}`: the join fields, the state, a time per reached state, parties ahead and the current estimate. */
  async visit(principal: Principal, visitId: string) {
    return this.describe(await this.ownVisit(principal.partnerId, visitId));
  }

  async describe(visit: Visit) {
    let ahead = 0;
    let expected = { min: visit.expected_min, max: visit.expected_max };
    if (visit.state === 'WAITING' && visit.position !== null) {
      const { config } = await this.restaurant(visit.business_id);
      ahead = await this.store().aheadOf(visit.business_id, visit.bucket, visit.position);
      const e = estimate(config.pace, visit.bucket, ahead, true);
      const now = this.clock.now();
      expected = { min: now + e.min_wait * 60_000, max: now + (e.max_wait ?? 2 * e.est_wait - e.min_wait) * 60_000 };
    }
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
      expected_seating_time_min: visit.state === 'WAITING' || visit.state === 'ON_MY_WAY' ? seconds(expected.min) : null,
      expected_seating_time_max: visit.state === 'WAITING' || visit.state === 'ON_MY_WAY' ? seconds(expected.max) : null,
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

  /** `POST /v3/visits/{visit_id}/cancel` → 204; a terminal visit → 409 VISIT_ALREADY_IN_TERMINAL_STATE. */
  async cancel(principal: Principal, visitId: string, pending?: PendingIdempotency): Promise<void> {
    await this.ownVisit(principal.partnerId, visitId);
    await this.move(visitId, 'CANCELED', pending);
  }

  /**
   * Moves a visit to `state` (the cancel route and the restaurant side): from an active state
   * only, with the state's time and the event, in one transaction.
   */
  private async move(visitId: string, state: VisitState, pending?: PendingIdempotency, from: readonly VisitState[] = ACTIVE_STATES) {
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const visit = await store.lockVisit(visitId);
      if (!visit) throw apiError('NOT_FOUND', 'Not Found: no such visit');
      if ((TERMINAL_STATES as readonly string[]).includes(visit.state)) throw apiError('VISIT_ALREADY_IN_TERMINAL_STATE', `The visit is already ${visit.state}.`);
      const change = { state, updated_at: now, ...stateTime(state, now) };
      if (!from.includes(visit.state) || !(await store.moveVisit(visit.id, from, change))) {
        throw apiError('CONFLICT', `A ${visit.state} visit cannot become ${state}.`);
      }
      await answerWithinChange(trx, pending, 204, undefined);
      if (visit.partner_id !== null) await recordEvent(trx, this.database.dialect, this.visitEvent({ ...visit, ...change }, state, now));
      await this.publish(trx, visit.business_id);
      return visit.business_id;
    }).then((businessId) => this.forget(businessId));
    this.options.onEventsCommitted?.();
  }

  private visitEvent(visit: Visit, change: string, now: number): DomainEvent {
    return {
      type: VISIT_EVENT_TYPE,
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

  // ---- the restaurant side (operator) -----------------------------------------------------------

  async config(businessId: string) {
    const business = await this.businesses.requireRef(businessId);
    const { row, config } = await this.restaurant(business.id);
    return { business_id: business.id, ...config, manual_state: row.manual_state, closed_reason: row.closed_reason };
  }

  async setConfig(businessId: string, input: Record<string, unknown>) {
    const business = await this.businesses.requireRef(businessId);
    const now = this.clock.now();
    await this.store().ensureRestaurant(this.defaults(business.id, now));
    const { config } = await this.restaurant(business.id);
    const next = mergeConfig(config, input);
    if ((input.pace as { from_reservations?: boolean } | undefined)?.from_reservations) {
      const inventory = await this.options.inventoryOf?.(business.id);
      if (!inventory || inventory.tables.length === 0) invalid('pace', 'The restaurant has no reservation tables to take a pace from.');
      next.pace.parties_per_interval = paceFromInventory(inventory!, next.pace.interval_minutes);
    }
    await this.database.transact(async (trx) => {
      await this.store(trx).updateRestaurant(business.id, { config: JSON.stringify(next), updated_at: now });
      await this.publish(trx, business.id);
    });
    this.forget(business.id);
    return this.config(business.id);
  }

  /** Opens the waitlist (it then follows its hours) or closes it with a reason. */
  async setOpen(businessId: string, open: boolean, reason?: string) {
    const business = await this.businesses.requireRef(businessId);
    if (!open && reason !== undefined && !(MANUAL_CLOSED_REASONS as readonly string[]).includes(reason)) {
      invalid('reason', `reason must be one of ${MANUAL_CLOSED_REASONS.join(', ')}`);
    }
    const now = this.clock.now();
    await this.store().ensureRestaurant(this.defaults(business.id, now));
    await this.database.transact(async (trx) => {
      await this.store(trx).updateRestaurant(business.id, { manual_state: open ? 'OPEN' : 'CLOSED', closed_reason: open ? null : (reason ?? 'waitlist_closed'), updated_at: now });
      await this.publish(trx, business.id);
    });
    this.forget(business.id);
    return this.config(business.id);
  }

  /** Adds a party at the door (no partner): the first party of a line comes this way (facts §4.2). */
  async addWalkIn(businessId: string, body: Record<string, unknown>) {
    const business = await this.businesses.requireRef(businessId);
    if (!Number.isInteger(body.party_size) || (body.party_size as number) < 1) invalid('party_size', 'party_size must be a whole number of at least 1');
    const phone = body.phone;
    if (phone !== undefined && (typeof phone !== 'string' || !E164.test(phone))) invalid('phone', 'phone must be an E.164 number');
    const now = this.clock.now();
    const visit = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const { position } = await store.takePosition(this.defaults(business.id, now));
      await this.restartPaceIfIdle(store, business.id, now);
      const input = { phone: (phone as string | undefined) ?? '', party_size: body.party_size as number, name: typeof body.name === 'string' && body.name.trim() ? body.name.trim() : 'Walk-in', party_notes: '' };
      const walkIn: Visit = { ...this.newVisit(null, business.id, 'WALK_IN', 'WAITING', input, now), phone: (phone as string | undefined) ?? null, position };
      if (!(await store.insertVisit(walkIn))) throw apiError('ALREADY_IN_LINE', 'This phone number already has a visit in line here.');
      await this.publish(trx, business.id);
      return walkIn;
    });
    this.forget(business.id);
    return this.describe(visit);
  }

  /** An idle line starts its pace from now, so its first party is not notified for time nobody waited. */
  private async restartPaceIfIdle(store: WaitlistStore, businessId: string, now: number) {
    const active = await store.activeVisits(businessId);
    if (!active.some((v) => v.state === 'WAITING' || v.state === 'NOTIFIED')) await store.updateRestaurant(businessId, { advanced_at: now });
  }

  async queue(businessId: string) {
    const business = await this.businesses.requireRef(businessId);
    const visits = await this.store().activeVisits(business.id);
    return { business_id: business.id, visits: await Promise.all(visits.map((v) => this.describe(v))) };
  }

  /** The restaurant side's moves: notify (table ready), seat, no-show, arrive (an on-my-way party checks in). */
  async act(visitId: string, action: 'notify' | 'seat' | 'no-show' | 'arrive') {
    const visit = await this.store().visit(visitId);
    if (!visit) throw apiError('NOT_FOUND', 'Not Found: no such visit');
    if (action === 'arrive') await this.arrive(visit);
    else if (action === 'notify') await this.move(visitId, 'NOTIFIED', undefined, ['WAITING']);
    else if (action === 'seat') await this.move(visitId, 'SEATED', undefined, ['WAITING', 'NOTIFIED']);
    else await this.move(visitId, 'NO_SHOW', undefined, ['WAITING', 'NOTIFIED', 'ON_MY_WAY']);
    return this.describe((await this.store().visit(visitId))!);
  }

  /** An on-my-way party arrives: it takes the next place in line and waits. */
  private async arrive(visit: Visit) {
    if (visit.state !== 'ON_MY_WAY') throw apiError('CONFLICT', `A ${visit.state} visit cannot arrive.`);
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const { position } = await store.takePosition(this.defaults(visit.business_id, now));
      await this.restartPaceIfIdle(store, visit.business_id, now);
      const change = { state: 'WAITING' as const, position, arrived_at: now, updated_at: now };
      if (!(await store.moveVisit(visit.id, ['ON_MY_WAY'], change))) throw apiError('CONFLICT', 'The visit is no longer on its way.');
      if (visit.partner_id !== null) await recordEvent(trx, this.database.dialect, this.visitEvent({ ...visit, ...change }, 'ARRIVED', now));
      await this.publish(trx, visit.business_id);
    });
    this.forget(visit.business_id);
    this.options.onEventsCommitted?.();
  }

  // ---- the pbs clock -----------------------------------------------------------------------------

  /**
   * Every minute of pbs time: each line with active visits advances at its pace, interval by
   * interval since it last did — parties notified an interval ago are seated, then the first
   * `parties_per_interval` waiting parties of each bucket are notified — while the waitlist is
   * open and auto_advance is on; on-my-way visits past their arrive-by time (plus 15 minutes)
   * expire. Terminal visits older than 30 days are forgotten.
   */
  async runSchedule(): Promise<void> {
    const now = this.clock.now();
    for (const row of await this.store().restaurantsWithActiveVisits()) {
      await this.database.transact(async (trx) => {
        await this.advance(trx, row.business_id, now);
        await this.publish(trx, row.business_id);
      });
      this.forget(row.business_id);
    }
    this.options.onEventsCommitted?.();
    await this.store().purge(now - VISIT_RETENTION_MS);
  }

  private async advance(trx: DbOrTx, businessId: string, now: number) {
    const store = this.store(trx);
    const { row, config, state } = await this.situation(businessId, trx);
    const events: DomainEvent[] = [];
    const visits = await store.activeVisits(businessId);
    const record = async (visit: Visit, from: readonly VisitState[], to: VisitState, at: number, extra: Partial<Visit> = {}) => {
      const change = { state: to, updated_at: at, ...stateTime(to, at), ...extra };
      if (await store.moveVisit(visit.id, from, change)) {
        Object.assign(visit, change);
        if (visit.partner_id !== null) events.push(this.visitEvent(visit, to, at));
      }
    };
    for (const visit of visits) {
      if (visit.state === 'ON_MY_WAY' && visit.arrive_by_time !== null && visit.arrive_by_time + ON_MY_WAY_GRACE_MS <= now) await record(visit, ['ON_MY_WAY'], 'EXPIRED', now);
    }
    const interval = config.pace.interval_minutes * 60_000;
    const running = config.auto_advance && (state.state === 'OPEN' || state.state === 'ON_MY_WAY');
    if (!running) {
      await store.updateRestaurant(businessId, { advanced_at: now });
    } else {
      const steps = Math.min(Math.floor((now - row.advanced_at) / interval), 1000);
      for (let k = 1; k <= steps; k++) {
        const at = row.advanced_at + k * interval;
        for (const visit of visits) {
          if (visit.state === 'NOTIFIED' && visit.notified_at !== null && visit.notified_at <= at - interval) await record(visit, ['NOTIFIED'], 'SEATED', at);
        }
        for (const bucket of BUCKETS) {
          const next = visits.filter((v) => v.state === 'WAITING' && v.bucket === bucket).slice(0, config.pace.parties_per_interval[bucket]);
          for (const visit of next) await record(visit, ['WAITING'], 'NOTIFIED', at);
        }
      }
      if (steps > 0) await store.updateRestaurant(businessId, { advanced_at: row.advanced_at + steps * interval });
    }
    for (const event of events) await recordEvent(trx, this.database.dialect, event);
  }
}

/** The column recording when a visit reached `state`. */
function stateTime(state: VisitState, at: number): Partial<Visit> {
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
