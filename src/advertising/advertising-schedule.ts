import type { Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { localDate } from '../platform/local-time.js';
import { PACIFIC, programEvent, type ProgramChange } from './advertising-rules.js';
import { AdvertisingStore, type AdProgram } from './advertising-store.js';

/**
 * Ends a program and its promotions (docs/contract/advertising.md §8.9: a promo ends when its parent loses
 * eligibility), recording an event for each. CANCELED: ended before it started, so the id is
 * invalidated (docs/contract/advertising.md §8.3). Used by end jobs, the end-of-day schedule and the operator's flags.
 */
export async function endProgram(
  store: AdvertisingStore,
  program: AdProgram,
  now: number,
  change: Extract<ProgramChange, 'ENDED' | 'CANCELED' | 'EXPIRED'>,
  events: DomainEvent[],
  jobId?: string,
) {
  if (!(await store.endProgram(program.id, now, change === 'CANCELED' ? 'CANCELED' : 'ENDED'))) return;
  events.push(programEvent(program, change, now, jobId));
  for (const promo of await store.activePromosOf(program.id)) {
    if (await store.endProgram(promo.id, now, change === 'CANCELED' ? 'CANCELED' : 'ENDED'))
      events.push(programEvent(promo, change, now, jobId));
  }
}

/** Advertising on the pbs clock: programs expire at the end of their last day, and scheduled budgets take effect. */
export class AdvertisingSchedule {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly onEventsCommitted: () => void = () => {},
  ) {}

  private store(db: DbOrTx) {
    return new AdvertisingStore(db, this.database.dialect);
  }

  /**
   * Every minute of pbs time: programs past their end date (23:59 Pacific) end, with their
   * promotions, and scheduled budget changes whose date has come take effect.
   */
  async runSchedule(): Promise<void> {
    const now = this.clock.now();
    const today = localDate(now, PACIFIC);
    for (;;) {
      const changed = await this.database.transact(async (trx) => {
        const store = this.store(trx);
        const events: DomainEvent[] = [];
        const due = await store.dueToExpire(now, 200);
        for (const program of due) await endProgram(store, program, now, 'EXPIRED', events);
        const budgets = await store.dueBudgetChanges(today, 200);
        for (const program of budgets) {
          await store.updateProgram(program.id, {
            budget: program.future_budget,
            future_budget: null,
            future_budget_date: null,
            updated_at: now,
          });
          events.push(programEvent({ ...program, budget: program.future_budget }, 'BUDGET_CHANGED', now));
        }
        for (const event of events) await recordEvent(trx, this.database.dialect, event);
        return due.length + budgets.length;
      });
      if (changed === 0) break;
      this.onEventsCommitted();
    }
  }
}
