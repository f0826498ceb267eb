import { noteAudit } from '../platform/audit/audit-trail.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { invalid, walkIn } from './waitlist-input.js';
import type { WaitlistLines } from './waitlist-lines.js';
import { MANUAL_CLOSED_REASONS, mergeConfig, paceFromInventory } from './waitlist-rules.js';
import type { Visit, WaitlistStore } from './waitlist-store.js';
import { isOneOf } from '../platform/query.js';
import { toJson } from '../platform/values.js';
import { isRecord } from '../platform/values.js';

/**
 * The restaurant's side of the waitlist, run by the operator (API, console, CLI): its settings
 * and switch, walk-ins at the door, the live queue, and the moves a host makes (notify, seat,
 * no-show, arrive).
 */
export class WaitlistRestaurantSide {
  constructor(private readonly lines: WaitlistLines) {}

  async config(businessId: string) {
    const business = await this.lines.businesses.requireRef(businessId);
    const { row, config } = await this.lines.restaurant(business.id);
    return { business_id: business.id, ...config, manual_state: row.manual_state, closed_reason: row.closed_reason };
  }

  async setConfig(businessId: string, input: Record<string, unknown>) {
    const { lines } = this;
    const business = await lines.businesses.requireRef(businessId);
    const now = lines.clock.now();
    await lines.store().ensureRestaurant(lines.defaults(business.id, now));
    const { config } = await lines.restaurant(business.id);
    const next = mergeConfig(config, input);
    if (isRecord(input.pace) && input.pace.from_reservations) {
      const inventory = await lines.options.inventoryOf?.(business.id);
      if (!inventory || inventory.tables.length === 0) invalid('pace', 'The restaurant has no reservation tables to take a pace from.');
      next.pace.parties_per_interval = paceFromInventory(inventory, next.pace.interval_minutes);
    }
    await lines.database.transact(async (trx) => {
      noteAudit({ businessId: business.id, before: config, after: next });
      await lines.store(trx).updateRestaurant(business.id, { config: toJson(next), updated_at: now });
      await lines.publish(trx, business.id);
    });
    lines.forget(business.id);
    return this.config(business.id);
  }

  /** Opens the waitlist (it then follows its hours) or closes it with a reason. */
  async setOpen(businessId: string, open: boolean, reason?: string) {
    const { lines } = this;
    const business = await lines.businesses.requireRef(businessId);
    if (!open && reason !== undefined && !isOneOf(MANUAL_CLOSED_REASONS, reason)) {
      invalid('reason', `reason must be one of ${MANUAL_CLOSED_REASONS.join(', ')}`);
    }
    const now = lines.clock.now();
    await lines.store().ensureRestaurant(lines.defaults(business.id, now));
    await lines.database.transact(async (trx) => {
      await lines.store(trx).updateRestaurant(business.id, {
        manual_state: open ? 'OPEN' : 'CLOSED',
        closed_reason: open ? null : (reason ?? 'waitlist_closed'),
        updated_at: now,
      });
      await lines.publish(trx, business.id);
    });
    lines.forget(business.id);
    return this.config(business.id);
  }

  /** Adds a party at the door (no partner): the first party of a line comes this way (docs/contract/waitlist.md §4.2). */
  async addWalkIn(businessId: string, body: Record<string, unknown>) {
    const { lines } = this;
    const business = await lines.businesses.requireRef(businessId);
    const input = walkIn(body);
    const now = lines.clock.now();
    const visit = await lines.database.transact(async (trx) => {
      const store = lines.store(trx);
      const { position } = await store.takePosition(lines.defaults(business.id, now));
      await restartPaceIfIdle(store, business.id, now);
      const party: Visit = {
        ...lines.newVisit(null, business.id, 'WALK_IN', 'WAITING', input, now),
        phone: input.hasPhone ? input.phone : null,
        position,
      };
      if (!(await store.insertVisit(party))) throw apiError('ALREADY_IN_LINE', 'This phone number already has a visit in line here.');
      await lines.publish(trx, business.id);
      return party;
    });
    lines.forget(business.id);
    return lines.describe(visit);
  }

  async queue(businessId: string) {
    const business = await this.lines.businesses.requireRef(businessId);
    const visits = await this.lines.store().activeVisits(business.id);
    return { business_id: business.id, visits: await Promise.all(visits.map((v) => this.lines.describe(v))) };
  }

  /** The restaurant side's moves: notify (table ready), seat, no-show, arrive (an on-my-way party checks in). */
  async act(visitId: string, action: 'notify' | 'seat' | 'no-show' | 'arrive') {
    const { lines } = this;
    const visit = await lines.store().visit(visitId);
    if (!visit) throw apiError('NOT_FOUND', 'Not Found: no such visit');
    if (action === 'arrive') await this.arrive(visit);
    else if (action === 'notify') await lines.move(visitId, 'NOTIFIED', undefined, ['WAITING']);
    else if (action === 'seat') await lines.move(visitId, 'SEATED', undefined, ['WAITING', 'NOTIFIED']);
    else await lines.move(visitId, 'NO_SHOW', undefined, ['WAITING', 'NOTIFIED', 'ON_MY_WAY']);
    return lines.describe((await lines.store().visit(visitId))!);
  }

  /** An on-my-way party arrives: it takes the next place in line and waits. */
  private async arrive(visit: Visit) {
    if (visit.state !== 'ON_MY_WAY') throw apiError('CONFLICT', `A ${visit.state} visit cannot arrive.`);
    const { lines } = this;
    const now = lines.clock.now();
    await lines.database.transact(async (trx) => {
      const store = lines.store(trx);
      const { position } = await store.takePosition(lines.defaults(visit.business_id, now));
      await restartPaceIfIdle(store, visit.business_id, now);
      const change = { state: 'WAITING' as const, position, arrived_at: now, updated_at: now };
      if (!(await store.moveVisit(visit.id, ['ON_MY_WAY'], change))) throw apiError('CONFLICT', 'The visit is no longer on its way.');
      if (visit.partner_id !== null)
        await recordEvent(trx, lines.database.dialect, lines.visitEvent({ ...visit, ...change }, 'ARRIVED', now));
      await lines.publish(trx, visit.business_id);
    });
    lines.forget(visit.business_id);
    lines.eventsCommitted();
  }
}

/** An idle line starts its pace from now, so its first party is not notified for time nobody waited. */
async function restartPaceIfIdle(store: WaitlistStore, businessId: string, now: number) {
  const active = await store.activeVisits(businessId);
  if (!active.some((v) => v.state === 'WAITING' || v.state === 'NOTIFIED')) await store.updateRestaurant(businessId, { advanced_at: now });
}
