import { localDate } from '../platform/local-time.js';
import { cents, MIN_BUDGET, PACIFIC, periodStart, programStatus } from './advertising-rules.js';
import type { AdProgram } from './advertising-store.js';
import { EDITABLE, type EditRequest } from './advertising-input.js';
import {
  bidProblem,
  type BudgetRange,
  type BusinessFacts,
  cannot,
  categoryProblem,
  CLOSED,
  type CreateFacts,
  type KeyErrors,
  missingKey,
  outsideRange,
  rangeText,
  type Rejection,
  REMOVED,
} from './advertising-judge.js';

/**
 * The judge of advertising edits and ends (advertising-judge.ts judges creations): every error
 * code of an edit or an end, decided from plain data, one case each in
 * test/advertising/advertising-judge.test.ts.
 */

export interface EditFacts {
  request: EditRequest;
  program: AdProgram;
  now: number;
  business: BusinessFacts;
  /** Spend recorded in the program's current budget period (from `periodStart`). */
  spentThisPeriod: number;
  /** The promotion codes of the program's running promotions. */
  promotions: BudgetRange[];
  /** The operator's policy declines among `categoriesToCheck(…)` of the edit's ad_categories. */
  declined: CreateFacts['declined'];
}

/** The first day of the period whose spend an edit of `program`'s budget is judged against. */
export const spendPeriodStart = (program: AdProgram, now: number) => periodStart(program, localDate(now, PACIFIC));

/**
 * An edit, judged against the program as it is now. Refused whole: a closed business
 * (PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS), a business removed from search
 * (PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH), an ended or expired program
 * (PROGRAM_HAS_EXPIRED). Per key: see docs/advertising.md.
 */
export function judgeEdit(
  facts: EditFacts,
): { refusal: Rejection } | { refusal?: undefined; errors: KeyErrors; budget: number | undefined } {
  const { request, program, now, business } = facts;
  if (business.closed) return { refusal: CLOSED };
  if (business.removedFromSearch) return { refusal: REMOVED };
  if (programStatus(program, now) === 'INACTIVE') return { refusal: { code: 'PROGRAM_HAS_EXPIRED', message: 'The program has ended.' } };

  const errors: KeyErrors = {};
  const today = localDate(now, PACIFIC);
  const started = program.start_at <= now;
  if (program.parent_program_id !== null) {
    for (const key of EDITABLE)
      if (request[key] !== undefined) errors[key] = cannot('A promotion program follows its parent program and cannot be modified.');
  }
  const budget = cents(request.budget);
  if (request.budget !== undefined) {
    if (budget === undefined) errors.budget ??= { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
    else if (program.program_type === 'CPC' && budget < MIN_BUDGET)
      errors.budget ??= { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
    else if (request.future_budget_date === undefined && budget < facts.spentThisPeriod) {
      errors.budget ??= {
        code: 'CANNOT_DECREASE_BUDGET_BELOW_AMOUNT_ALREADY_SPENT',
        message: `The budget cannot go below the amount already spent (${facts.spentThisPeriod}).`,
      };
    }
    if (budget !== undefined && !errors.budget) {
      // The last running promotion whose range the budget leaves is named.
      const violated = facts.promotions.filter((promotion) => outsideRange(budget, promotion)).at(-1);
      if (violated)
        errors.budget = {
          code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS',
          message: `The running promotion ${violated.code} needs a budget ${rangeText(violated)}.`,
        };
    }
  }
  if (request.future_budget_date !== undefined) {
    if (request.budget === undefined) errors.future_budget_date ??= missingKey('budget (future_budget_date schedules a budget change)');
    else if (request.future_budget_date <= today)
      errors.future_budget_date ??= {
        code: 'CANNOT_ADD_PROGRAM_IN_PAST',
        message: `The future budget date ${request.future_budget_date} is not after today.`,
      };
  }
  if (request.max_bid !== undefined && !errors.max_bid) {
    if (program.is_autobid !== 0) errors.max_bid = cannot('max_bid applies only to a program bidding with max_bid (is_autobid false).');
    else {
      const from = program.start_date > today ? program.start_date : today;
      const budgetNow = request.future_budget_date === undefined ? (budget ?? program.budget ?? undefined) : (program.budget ?? undefined);
      const problem = bidProblem(request.max_bid, false, budgetNow, request.fee_period ?? program.fee_period, from);
      if (problem) errors.max_bid = problem;
    }
  }
  if (request.start !== undefined && !errors.start) {
    if (started) errors.start = cannot('The start date of a program that has started cannot change.');
    else if (request.start < today)
      errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
  }
  const startDate = request.start ?? program.start_date;
  if (request.end !== undefined && !errors.end && (request.end < today || request.end < startDate)) {
    errors.end = cannot(`The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.`);
  }
  if (request.pacing_method === 'unpaced' && program.is_autobid === 1)
    errors.pacing_method ??= cannot('pacing_method unpaced is not allowed with autobid.');
  if (request.currency !== undefined && request.currency !== program.currency) {
    errors.currency ??= {
      code: 'CURRENCY_MISMATCH',
      message: `The program is paid in ${program.currency}; the currency must stay consistent.`,
    };
  }
  if (request.fee_period !== undefined && request.fee_period !== program.fee_period && started) {
    errors.fee_period ??= cannot('The fee period cannot change after the program has started.');
  }
  if (request.ad_categories !== undefined && !errors.ad_categories) {
    const problem = categoryProblem(request.ad_categories, business.categories, program.program_type === 'CPC', facts.declined);
    if (problem) errors.ad_categories = problem;
  }
  return { errors, budget };
}

/** An end, judged: an ended program (PROGRAM_HAS_EXPIRED) or a closed business refuses it. */
export function judgeEnd(facts: { program: AdProgram; now: number; business: Pick<BusinessFacts, 'closed'> }): Rejection | undefined {
  if (programStatus(facts.program, facts.now) === 'INACTIVE')
    return { code: 'PROGRAM_HAS_EXPIRED', message: 'The program has already ended.' };
  if (facts.business.closed) return CLOSED;
  return undefined;
}
