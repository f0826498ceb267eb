import type { Principal } from '../platform/auth/principal.js';
import { afterwards } from '../platform/at-once.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { arrivalRange, joinFields, party, refuseTooLarge, seconds } from './waitlist-input.js';
import type { LineSnapshot, WaitlistLines } from './waitlist-lines.js';
import { bucketOf, estimate, MAX_ACTIVE_ON_MY_WAY, waitlistHours, waitlistState, type Estimate } from './waitlist-rules.js';
import type { Visit, WaitlistStore } from './waitlist-store.js';
import { BUCKETS } from './waitlist-tables.js';

/** A snapshot's status answers: what they share, and their bytes by state (or closed reason). */
interface StatusParts {
  hours: Int32Array;
  total: number;
  estimates: Record<string, Estimate>;
  answers: Map<string, Buffer>;
}

/** The key of a restaurant's snapshot in its group (the group is the business). */
const SNAPSHOT = 'status';

/**
 * The partner's side of the waitlist (docs/contract/waitlist.md §4.3): a restaurant's state and estimates, its
 * settings, joining the line, on-my-way visits, and the partner's own visits and their cancel.
 */
export class WaitlistPartnerSide {
  constructor(private readonly lines: WaitlistLines) {}

  /**
   * What each snapshot's status answers share, worked out with its first read: the hours and the
   * estimates depend on the snapshot alone; only the state turns with the clock.
   */
  private readonly statusParts = new WeakMap<LineSnapshot, StatusParts>();

  /**
   * `GET /v3/businesses/{business_id}/waitlist/status` (docs/contract/waitlist.md §4.3), from the
   * restaurant's snapshot: the JSON bytes, kept per snapshot and state, so a read of a kept
   * snapshot costs the state's check (is it open this minute?) and no promise.
   */
  status(businessId: string): Buffer | Promise<Buffer> {
    const snapshot = this.lines.snapshots.read(businessId, SNAPSHOT, async () => {
      const { business, row, config, waiting } = await this.lines.situation(businessId);
      return { business, row, config, waiting };
    });
    return afterwards(snapshot, (kept) => this.statusOf(kept));
  }

  private statusOf(snapshot: LineSnapshot): Buffer {
    const { business, row, config, waiting } = snapshot;
    let parts = this.statusParts.get(snapshot);
    if (!parts) {
      const total = BUCKETS.reduce((n, b) => n + waiting[b], 0);
      parts = {
        hours: waitlistHours(business, config),
        total,
        estimates: Object.fromEntries(BUCKETS.map((b) => [b, estimate(config.pace, b, waiting[b], total > 0)])),
        answers: new Map(),
      };
      this.statusParts.set(snapshot, parts);
    }
    const manual = { state: row.manual_state, reason: row.closed_reason };
    const state = waitlistState(business, config, manual, parts.total, this.lines.clock.now(), parts.hours);
    const key = 'closed_reason' in state ? state.closed_reason : state.state;
    let answer = parts.answers.get(key);
    if (!answer) {
      answer = Buffer.from(JSON.stringify({ business_id: business.id, ...state, wait_estimates: parts.estimates }));
      parts.answers.set(key, answer);
    }
    return answer;
  }

  /** `GET /v3/businesses/{business_id}/waitlist/info` (docs/contract/waitlist.md §4.3). */
  async info(businessId: string) {
    const business = await this.lines.businesses.requireRef(businessId);
    const { config } = await this.lines.restaurant(business.id);
    return {
      join_radius: config.join_radius,
      join_radius_unit: config.join_radius_unit,
      max_party_size: config.max_party_size,
      seating_areas: config.seating_areas,
    };
  }

  /**
   * `POST /v3/businesses/{business_id}/waitlist/visits` → 201. The restaurant's row is locked
   * first (its next position taken), so concurrent joins are judged one after the other.
   */
  async join(principal: Principal, businessId: string, body: Record<string, unknown>, write?: PartnerWrite) {
    const input = party(body);
    const { preference, token } = joinFields(body);
    const { lines } = this;
    const business = await lines.businesses.get(businessId);
    if (token !== undefined) {
      const earlier = await lines.store().visitByToken(principal.partnerId, token);
      if (earlier) return joinAnswer(earlier);
    }
    const now = lines.clock.now();
    const answer = await lines.database.transact(async (trx) => {
      const store = lines.store(trx);
      const { position, config, waiting, total, state } = await lines.lockedLine(store, business, now);
      refuseClosed(state);
      refuseTooLarge(input, config);
      if (preference !== '' && !Object.hasOwn(config.seating_areas, preference)) {
        throw apiError(
          'INVALID_SEATING_PREFERENCE',
          `seating_area_preference must be one of: ${Object.keys(config.seating_areas).join(', ') || '(none offered)'}`,
        );
      }
      if (state.state !== 'OPEN')
        throw apiError('CURRENTLY_NO_WAIT', 'The restaurant has no wait: come in, or announce an on-my-way visit.');
      await refuseTaken(store, input.phone, business.id);
      const bucket = bucketOf(input.party_size);
      const e = estimate(config.pace, bucket, waiting[bucket], total > 0);
      const visit: Visit = {
        ...lines.newVisit(principal.partnerId, business.id, 'QUEUE', 'WAITING', input, now),
        seating_area_preference: preference,
        idempotency_token: token ?? null,
        position,
        expected_min: now + e.min_wait * 60_000,
        expected_max: now + (e.max_wait ?? e.est_wait + (e.est_wait - e.min_wait)) * 60_000,
      };
      visit.arrive_by_time = visit.expected_min;
      if (!(await store.insertVisit(visit))) await refuseTaken(store, input.phone, business.id, true);
      const result = joinAnswer(visit);
      await answerWithinChange(trx, write, 201, result);
      await recordEvent(trx, lines.database.dialect, lines.visitEvent(visit, 'JOINED', now, write?.requestId));
      await lines.publish(trx, business.id);
      return result;
    });
    lines.forget(business.id);
    lines.eventsCommitted();
    return answer;
  }

  /**
   * `POST /v3/businesses/{business_id}/waitlist/on-my-way` → 201: open with no wait, an arrival
   * window within 30 minutes, and fewer than 9 active on-my-way visits (the 10th: 409 CONFLICT).
   */
  async onMyWay(principal: Principal, businessId: string, body: Record<string, unknown>, write?: PartnerWrite) {
    const input = party(body);
    const range = arrivalRange(body);
    const { lines } = this;
    const business = await lines.businesses.get(businessId);
    const now = lines.clock.now();
    return lines.database
      .transact(async (trx) => {
        const store = lines.store(trx);
        // The restaurant's lock (the position goes unused: on-my-way visits take theirs on arrival).
        const { config, state } = await lines.lockedLine(store, business, now);
        refuseClosed(state);
        refuseTooLarge(input, config);
        if (state.state === 'OPEN') throw apiError('CURRENTLY_HAS_WAIT', 'The restaurant has a wait: join the waitlist instead.');
        if (state.state !== 'ON_MY_WAY') throw apiError('RESTAURANT_NOT_OPEN', 'The restaurant takes no on-my-way visits now.');
        if ((await store.countActiveOnMyWay(business.id)) >= MAX_ACTIVE_ON_MY_WAY) {
          throw apiError('CONFLICT', `The restaurant already expects ${MAX_ACTIVE_ON_MY_WAY} parties on their way; try again later.`);
        }
        await refuseTaken(store, input.phone, business.id);
        const visit: Visit = {
          ...lines.newVisit(principal.partnerId, business.id, 'ON_MY_WAY', 'ON_MY_WAY', input, now),
          arrival_range_min: range.min,
          arrival_range_max: range.max,
          arrive_by_time: now + range.max * 60_000,
        };
        if (!(await store.insertVisit(visit))) await refuseTaken(store, input.phone, business.id, true);
        const answer = { visit_id: visit.id, party_size: visit.party_size, arrive_by_time: seconds(visit.arrive_by_time) };
        await answerWithinChange(trx, write, 201, answer);
        await recordEvent(trx, lines.database.dialect, lines.visitEvent(visit, 'ON_MY_WAY', now, write?.requestId));
        return answer;
      })
      .finally(() => lines.eventsCommitted());
  }

  /** `GET /v3/visits/{visit_id}`: the partner's own visit (another partner's answers like an unknown one). */
  async visit(principal: Principal, visitId: string) {
    return this.lines.describe(await this.ownVisit(principal.partnerId, visitId));
  }

  /** `POST /v3/visits/{visit_id}/cancel` → 204; a terminal visit → 409 VISIT_ALREADY_IN_TERMINAL_STATE. */
  async cancel(principal: Principal, visitId: string, write?: PartnerWrite): Promise<void> {
    await this.ownVisit(principal.partnerId, visitId);
    await this.lines.move(visitId, 'CANCELED', write);
  }

  private async ownVisit(partnerId: string, visitId: string) {
    const visit = await this.lines.store().visit(visitId);
    if (!visit || visit.partner_id !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such visit');
    return visit;
  }
}

/** Closed for any reason → RESTAURANT_NOT_OPEN, except remote entry disabled → REMOTE_ENTRY_DENIED. */
function refuseClosed(state: ReturnType<typeof waitlistState>) {
  if (state.state !== 'CLOSED' || state.closed_reason === 'no_current_wait') return;
  if (state.closed_reason === 'remote_entry_disabled')
    throw apiError('REMOTE_ENTRY_DENIED', 'This restaurant does not take remote entries.');
  throw apiError('RESTAURANT_NOT_OPEN', `The waitlist is closed (${state.closed_reason}).`);
}

/** ALREADY_IN_LINE for an active visit of the phone here; SCHEDULE_CONFLICT for one elsewhere. */
async function refuseTaken(store: WaitlistStore, phone: string, businessId: string, lostRace = false) {
  const active = await store.activeVisitsOfPhone(phone);
  if (lostRace || active.some((v) => v.business_id === businessId))
    throw apiError('ALREADY_IN_LINE', 'This phone number already has a visit in line here.');
  if (active.length > 0) throw apiError('SCHEDULE_CONFLICT', 'This phone number is already in line at another restaurant.');
}

/** The join answer (docs/contract/waitlist.md §4.3): integer Unix seconds. */
function joinAnswer(visit: Visit) {
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
