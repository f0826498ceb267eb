import type { DbOrTx } from '../platform/db/database.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { stateTime, type WaitlistLines } from './waitlist-lines.js';
import { ON_MY_WAY_GRACE_MS, VISIT_RETENTION_MS } from './waitlist-rules.js';
import type { Visit } from './waitlist-store.js';
import { BUCKETS, type VisitState } from './waitlist-tables.js';

/** The waitlist on the pbs clock: lines advance at their seating pace; late on-my-way visits expire. */
export class WaitlistPace {
  constructor(private readonly lines: WaitlistLines) {}

  /**
   * Every minute of pbs time: each line with active visits advances at its pace, interval by
   * interval since it last did — parties notified an interval ago are seated, then the first
   * `parties_per_interval` waiting parties of each bucket are notified — while the waitlist is
   * open and auto_advance is on; on-my-way visits past their arrive-by time (plus 15 minutes)
   * expire. Terminal visits older than 30 days are forgotten.
   */
  async runSchedule(): Promise<void> {
    const { lines } = this;
    const now = lines.clock.now();
    for (const row of await lines.store().restaurantsWithActiveVisits()) {
      await lines.database.transact(async (trx) => {
        await this.advance(trx, row.business_id, now);
        await lines.publish(trx, row.business_id);
      });
      lines.forget(row.business_id);
    }
    lines.eventsCommitted();
    await lines.store().purge(now - VISIT_RETENTION_MS);
  }

  private async advance(trx: DbOrTx, businessId: string, now: number) {
    const { lines } = this;
    const store = lines.store(trx);
    const { row, config, state } = await lines.situation(businessId, trx);
    const events: DomainEvent[] = [];
    const visits = await store.activeVisits(businessId);
    const record = async (visit: Visit, from: readonly VisitState[], to: VisitState, at: number) => {
      const change = { state: to, updated_at: at, ...stateTime(to, at) };
      if (await store.moveVisit(visit.id, from, change)) {
        Object.assign(visit, change);
        if (visit.partner_id !== null) events.push(lines.visitEvent(visit, to, at));
      }
    };
    for (const visit of visits) {
      if (visit.state === 'ON_MY_WAY' && visit.arrive_by_time !== null && visit.arrive_by_time + ON_MY_WAY_GRACE_MS <= now)
        await record(visit, ['ON_MY_WAY'], 'EXPIRED', now);
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
          if (visit.state === 'NOTIFIED' && visit.notified_at !== null && visit.notified_at <= at - interval)
            await record(visit, ['NOTIFIED'], 'SEATED', at);
        }
        for (const bucket of BUCKETS) {
          const next = visits
            .filter((v) => v.state === 'WAITING' && v.bucket === bucket)
            .slice(0, config.pace.parties_per_interval[bucket]);
          for (const visit of next) await record(visit, ['WAITING'], 'NOTIFIED', at);
        }
      }
      if (steps > 0) await store.updateRestaurant(businessId, { advanced_at: row.advanced_at + steps * interval });
    }
    for (const event of events) await recordEvent(trx, lines.database.dialect, event);
  }
}
