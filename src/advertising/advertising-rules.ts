import { FEATURES_BY_PROGRAM } from './program-features.js';
import { toIsoOffset } from '../platform/clock.js';
import type { DomainEvent } from '../platform/events.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { addDays, daysBetween, localDate, localDay } from '../platform/local-time.js';
import type { AdProgram, ProgramTotals } from './advertising-store.js';

/**
 * The advertising rules that need no database: Pacific dates, budget periods, proration, and the
 * shapes partners read (program listings, events). The service applies them to stored programs.
 */

/** Programs start at 00:00 and end at 23:59 Pacific time of their dates (spec, Advertising). */
export const PACIFIC = 'America/Los_Angeles';
/** CPC limits (spec, Limits): budget in cents per month, bid in cents. */
export const MIN_BUDGET = 2500;
export const MIN_BID = 50;
/**
 * Promotion codes are for new advertisers: none of the business's programs ran in this many days
 * (docs/contract/advertising.md §8.9: six months).
 */
export const NEW_ADVERTISER_DAYS = 183;

/** 00:00 Pacific of a date. */
export const startOfDay = (date: string) => localDay(date, PACIFIC)(0);
/** 23:59:59.999 Pacific of a date: the last moment of a program ending that day. */
export const endOfDay = (date: string) => localDay(addDays(date, 1), PACIFIC)(0) - 1;

/** The last day of the month `months` after the month of `date` (a promo program's end, docs/contract/advertising.md §8.9). */
export function lastDayMonthsAfter(date: string, months: number): string {
  const [y, m] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 + months + 1, 0)).toISOString().slice(0, 10);
}

/** The first day of the budget period holding `today`: the 1st (calendar month) or every 30 days from the start (rolling month). */
export function periodStart(program: Pick<AdProgram, 'fee_period' | 'start_date'>, today: string): string {
  if (program.fee_period === 'ROLLING_MONTH') {
    const elapsed = Math.max(0, daysBetween(program.start_date, today));
    return addDays(program.start_date, elapsed - (elapsed % 30));
  }
  return `${today.slice(0, 8)}01`;
}

/**
 * The share of a monthly budget left for the first (or current) period from `from` on: the
 * remaining days of the calendar month, or the whole budget for a rolling 30-day period. A bid
 * above it could not be paid once (BID_TOO_HIGH_FOR_BUDGET).
 */
export function proratedBudget(budget: number, feePeriod: string, from: string): number {
  if (feePeriod === 'ROLLING_MONTH') return budget;
  const [y, m, d] = from.split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Math.floor((budget * (daysInMonth - d + 1)) / daysInMonth);
}

/** Whole cents given as digits only; a decimal or anything else is not a price. */
export const cents = (raw: string | undefined) => (raw !== undefined && /^\d{1,12}$/.test(raw) ? Number(raw) : undefined);

/**
 * The program when it is the caller's; otherwise 404, as for an unknown id. A program ended
 * before it started is invalidated (docs/contract/advertising.md §8.3): later calls with it fail the same way.
 */
export function ownedProgram(program: AdProgram | undefined, partnerId: string): AdProgram {
  if (!program || program.partner_id !== partnerId || program.state === 'CANCELED')
    throw apiError('NOT_FOUND', 'Not Found: no such program');
  return program;
}

/** ACTIVE until ended, canceled or past its end date (docs/contract/advertising.md §8.7: ACTIVE | INACTIVE). */
export function programStatus(program: AdProgram, now: number): 'ACTIVE' | 'INACTIVE' {
  return program.state === 'ACTIVE' && (program.end_at === null || program.end_at > now) ? 'ACTIVE' : 'INACTIVE';
}

/**
 * Where a program stands as the listings file it (docs/contract/advertising.md §8.7): FUTURE until
 * its start, CURRENT while it runs (paused or not), PAST once ended or past its end date.
 */
export function programPhase(program: AdProgram, now: number): 'FUTURE' | 'CURRENT' | 'PAST' {
  if (programStatus(program, now) === 'INACTIVE') return 'PAST';
  return program.start_at > now ? 'FUTURE' : 'CURRENT';
}

/** `program_status` in every listing and event: ACTIVE only while the program runs (not before its start, not after its end). */
export function listedStatus(program: AdProgram, now: number): 'ACTIVE' | 'INACTIVE' {
  return programPhase(program, now) === 'CURRENT' ? 'ACTIVE' : 'INACTIVE';
}

/** The last day a program runs: the day it was ended when that came before its scheduled end (or it had none). */
export function shownEndDate(program: AdProgram): string | null {
  if (program.state !== 'ENDED' || program.ended_at === null) return program.end_date;
  const endedOn = localDate(program.ended_at, PACIFIC);
  return program.end_date === null || endedOn < program.end_date ? endedOn : program.end_date;
}

const FEE_PERIOD_LABEL: Record<string, string> = { CALENDAR_MONTH: 'Calendar Month', ROLLING_MONTH: 'Rolling Month' };

/**
 * A program as the listings show it (docs/contract/advertising.md §8.7), with the operator's recorded figures.
 * `active`: the features set on it (Program Feature API); the others its type may have are
 * `available_features`.
 */
export function programView(program: AdProgram, totals: ProgramTotals | undefined, now: number, active: string[] = []) {
  return {
    program_type: program.program_type,
    program_id: program.id,
    start_date: program.start_date,
    end_date: shownEndDate(program),
    program_status: listedStatus(program, now),
    program_pause_status: program.pause_status,
    program_metrics: {
      budget: program.budget,
      currency: program.currency,
      is_autobid: program.is_autobid === null ? null : program.is_autobid === 1,
      max_bid: program.max_bid,
      billed_impressions: totals?.billed_impressions ?? 0,
      billed_clicks: totals?.billed_clicks ?? 0,
      ad_cost: totals?.spend ?? 0,
      fee_period: FEE_PERIOD_LABEL[program.fee_period] ?? program.fee_period,
    },
    future_budget_changes:
      program.future_budget !== null && program.future_budget_date !== null
        ? [{ new_budget: program.future_budget, start_date: program.future_budget_date, old_budget: program.budget }]
        : [],
    // page_upgrade_info ({monthly_rate, cost}) is left out: pbs prices no page upgrades, and real
    // ads clients read the key as an optional object, never null (docs/advertising.md).
    active_features: active,
    available_features: FEATURES_BY_PROGRAM[program.program_type].filter((type) => !active.includes(type)),
    ...(program.parent_program_id !== null ? { parent_program_id: program.parent_program_id, promotion_code: program.promotion_code } : {}),
  };
}

/** The advertising webhook types: opt-in, sent to the partner that owns the job or program. */
export const AD_EVENT_TYPES = {
  programUpdated: 'ADVERTISING_PROGRAM_UPDATED_EVENT',
  jobCompleted: 'ADVERTISING_JOB_COMPLETED_EVENT',
} as const;

/** What happened to a program, as the ADVERTISING_PROGRAM_UPDATED_EVENT says. */
export type ProgramChange =
  'CREATED' | 'MODIFIED' | 'ENDED' | 'CANCELED' | 'EXPIRED' | 'PAUSED' | 'RESUMED' | 'BUDGET_CHANGED' | 'FEATURES_CHANGED';

/** The event of a program change, for the partner that owns the program. */
export function programEvent(
  program: AdProgram,
  change: ProgramChange,
  now: number,
  jobId?: string,
): DomainEvent & { payload: Record<string, unknown> } {
  return {
    type: AD_EVENT_TYPES.programUpdated,
    businessId: program.business_id,
    partnerId: program.partner_id,
    at: now,
    payload: {
      event_type: AD_EVENT_TYPES.programUpdated,
      event_id: newId(),
      change,
      program_id: program.id,
      program_type: program.program_type,
      yelp_business_id: program.business_id,
      program_status: change === 'ENDED' || change === 'CANCELED' || change === 'EXPIRED' ? 'INACTIVE' : listedStatus(program, now),
      program_pause_status: change === 'PAUSED' ? 'PAUSED' : change === 'RESUMED' ? 'NOT_PAUSED' : program.pause_status,
      ...(jobId ? { job_id: jobId } : {}),
      updated_at: toIsoOffset(now),
    },
  };
}
