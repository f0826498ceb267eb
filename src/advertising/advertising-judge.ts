import { localDate } from '../platform/local-time.js';
import { cents, MIN_BID, MIN_BUDGET, NEW_ADVERTISER_DAYS, PACIFIC, programStatus, proratedBudget } from './advertising-rules.js';
import type { AdCategoryPolicy, AdProgram, AdPromotion } from './advertising-store.js';
import type { ProgramType } from './advertising-tables.js';
import type { CreateRequest } from './advertising-input.js';
import { storedStrings } from '../platform/query.js';

/**
 * The judge of advertising creations (advertising-edit-judge.ts judges edits and ends): every
 * error code, decided from plain data (no database, no clock). advertising-jobs.ts reads the
 * facts in the job's transaction, asks the judge, and writes what it decides. Each code's
 * condition is in docs/advertising.md; test/advertising/advertising-judge.test.ts has one case
 * per code.
 */

/** One key's refusal in a receipt (docs/contract/advertising.md §8.4 error codes). */
export interface Rejection {
  code: string;
  message: string;
}

/** The refused keys of a request: one refused key rejects the whole change (the rest: PARENT_WAS_REJECTED). */
export type KeyErrors = Record<string, Rejection>;

/** What the job knows of the business: its state, the operator's flags on it, its categories. */
export interface BusinessFacts {
  closed: boolean;
  removedFromSearch: boolean;
  restricted: boolean;
  /** Category aliases of the business. */
  categories: string[];
  specialties: string;
}

/** Branded and Enhanced Profile are one page upgrade in two sizes: a business has one or the other. */
const EXCLUSIVE: Partial<Record<ProgramType, ProgramType>> = { BP: 'EP', EP: 'BP' };

export const missingKey = (key: string): Rejection => ({
  code: 'INVALID_OR_MISSING_KEY',
  message: `Required keys are invalid or missing: ${key}`,
});
export const cannot = (message: string): Rejection => ({ code: 'COULD_NOT_MODIFY_PROGRAM', message });
const CLOSED_TO_CREATE: Rejection = { code: 'BUSINESS_NOT_ACTIVE', message: 'The business is closed.' };
export const CLOSED: Rejection = { code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS', message: 'The business is closed.' };
export const REMOVED: Rejection = {
  code: 'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH',
  message: 'The business is removed from search.',
};

// ---- create --------------------------------------------------------------------------------------

export interface CreateFacts {
  request: CreateRequest;
  partnerId: string;
  now: number;
  business: BusinessFacts;
  /** Every partner's programs of the business. */
  programs: AdProgram[];
  /** The operator's policy declines among `categoriesToCheck(…)`. */
  declined: Pick<AdCategoryPolicy, 'category' | 'reason'>[];
  /** The operator's row for the request's promotion code (undefined: no such code, or none sent). */
  promotion: AdPromotion | undefined;
}

/** A create judged: refused whole (business-level), or with its key errors and the values a program is made of. */
export type CreateVerdict =
  | { refusal: Rejection }
  | {
      refusal?: undefined;
      errors: KeyErrors;
      startDate: string;
      currency: string;
      budget: number | undefined;
      promotionMonths: number | undefined;
    };

export function judgeCreate(facts: CreateFacts): CreateVerdict {
  const { request, business, programs, now } = facts;
  if (business.closed) return { refusal: CLOSED_TO_CREATE };
  if (business.removedFromSearch) return { refusal: REMOVED };

  const cpc = request.program_name === 'CPC';
  const errors: KeyErrors = {};
  const today = localDate(now, PACIFIC);
  const startDate = request.start ?? today;
  if (request.start !== undefined && request.start < today)
    errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
  if (request.end !== undefined && (request.end < today || request.end < startDate)) {
    errors.end = {
      code: 'CANNOT_ADD_PROGRAM_IN_PAST',
      message: `The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.`,
    };
  }
  if (business.restricted)
    errors.program_name = { code: 'BUSINESS_RESTRICTED_FROM_ADVERTISING', message: 'The business is restricted from advertising.' };

  const running = programs.filter((p) => programStatus(p, now) === 'ACTIVE');
  const accountCurrency = running.find((p) => p.parent_program_id === null)?.currency;
  if (request.currency !== undefined && accountCurrency !== undefined && request.currency !== accountCurrency) {
    errors.currency = {
      code: 'CURRENCY_MISMATCH',
      message: `The business's programs are paid in ${accountCurrency}; the currency must stay consistent.`,
    };
  }

  const budget = cents(request.budget);
  if (cpc) {
    if (request.budget === undefined) errors.budget = missingKey('budget');
    else if (budget === undefined) errors.budget = { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
    else if (budget < MIN_BUDGET) errors.budget = { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
    if (request.is_autobid === undefined) errors.is_autobid = missingKey('is_autobid');
    const bid = bidProblem(
      request.max_bid,
      request.is_autobid === false,
      budget,
      request.fee_period,
      startDate < today ? today : startDate,
    );
    if (bid) errors.max_bid = bid;
    if (business.categories.length === 0) errors.program_name ??= { code: 'NO_CATEGORIES', message: 'The business has no categories.' };
    else if (business.specialties.trim() === '')
      errors.program_name ??= { ...missingKey('specialties'), message: 'CPC needs text in the business specialties field.' };
  }
  const categories = categoryProblem(request.ad_categories, business.categories, cpc, facts.declined);
  if (categories) errors[request.ad_categories.length > 0 ? 'ad_categories' : 'program_name'] ??= categories;

  const conflict = conflictOf(programs, running, request.program_name, facts.partnerId, startDate, now);
  if (conflict) errors.program_name ??= conflict;

  let promotionMonths: number | undefined;
  if (request.promotion_code !== undefined) {
    const promotion = promotionProblem(facts, budget);
    if ('rejection' in promotion) errors[promotion.rejection.key] ??= promotion.rejection;
    else promotionMonths = promotion.months;
  }
  return { errors, startDate, currency: request.currency ?? accountCurrency ?? 'USD', budget, promotionMonths };
}

/** INVALID_PRICE, a missing bid, or BID_TOO_HIGH_FOR_BUDGET (a bid above the budget prorated from `from`); undefined when fine. */
export function bidProblem(
  raw: string | undefined,
  required: boolean,
  budget: number | undefined,
  feePeriod: string,
  from: string,
): Rejection | undefined {
  const bid = cents(raw);
  if (raw !== undefined && bid === undefined) return { code: 'INVALID_PRICE', message: 'The max_bid must be a whole number of cents.' };
  if (bid !== undefined && bid < MIN_BID) return { code: 'INVALID_PRICE', message: `The max_bid must be at least ${MIN_BID} cents.` };
  if (raw === undefined && required) return missingKey('max_bid');
  if (bid !== undefined && budget !== undefined && budget >= MIN_BUDGET) {
    const prorated = proratedBudget(budget, feePeriod, from);
    if (bid > prorated)
      return { code: 'BID_TOO_HIGH_FOR_BUDGET', message: `The bid ${bid} exceeds the budget prorated from ${from} (${prorated}).` };
  }
  return undefined;
}

/**
 * The categories whose policy the judge needs: the ones asked for, or every category of the
 * business when none is named; none unless the program is CPC (only CPC targets categories).
 */
export function categoriesToCheck(asked: string[], ofBusiness: string[], cpc: boolean): string[] {
  if (!cpc || ofBusiness.length === 0) return [];
  return asked.length > 0 ? asked : ofBusiness;
}

/**
 * The ad categories: each must be one of the business's (INVALID_OR_MISSING_KEY); for CPC the
 * operator's policy may decline them (UNSUPPORTED_CATEGORIES: a declined category asked for, or
 * every category of the business declined when none is named).
 */
export function categoryProblem(
  asked: string[],
  ofBusiness: string[],
  cpc: boolean,
  declinedPolicy: CreateFacts['declined'],
): Rejection | undefined {
  const foreign = asked.filter((c) => !ofBusiness.includes(c));
  if (foreign.length > 0) return { code: 'INVALID_OR_MISSING_KEY', message: `Not categories of the business: ${foreign.join(', ')}` };
  const targeted = categoriesToCheck(asked, ofBusiness, cpc);
  const declined = declinedPolicy.filter((d) => targeted.includes(d.category));
  if (declined.length > 0 && (asked.length > 0 || declined.length === targeted.length)) {
    return {
      code: 'UNSUPPORTED_CATEGORIES',
      message: `Declined by advertising policy: ${declined.map((d) => `${d.category} (${d.reason})`).join(', ')}`,
    };
  }
  return undefined;
}

/**
 * The same type running (PROGRAM_ALREADY_REQUESTED by the caller; …_RUNNING_BY_ANOTHER_PROVIDER
 * by another partner), the exclusive sibling running (BP/EP), or the same type ended on or after
 * the new start date (CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM: "use a later start date").
 */
function conflictOf(
  programs: AdProgram[],
  running: AdProgram[],
  type: ProgramType,
  partnerId: string,
  startDate: string,
  now: number,
): Rejection | undefined {
  const parents = running.filter((p) => p.parent_program_id === null);
  const same = parents.find((p) => p.program_type === type);
  if (same) return alreadyActive(same, partnerId);
  const sibling = parents.find((p) => p.program_type === EXCLUSIVE[type]);
  if (sibling)
    return {
      code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM',
      message: `The business runs a ${sibling.program_type} program, which excludes ${type}.`,
    };
  const lastDays = programs
    .filter(
      (p) => p.program_type === type && p.parent_program_id === null && p.state !== 'CANCELED' && programStatus(p, now) === 'INACTIVE',
    )
    .map((p) => localDate(p.ended_at ?? p.end_at ?? now, PACIFIC));
  const latest = lastDays.sort().at(-1);
  if (latest !== undefined && latest >= startDate) {
    return { code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM', message: `A ${type} program ran until ${latest}; use a start date after it.` };
  }
  return undefined;
}

/** The refusal of a type already running for the business: by the caller, or by another partner. */
export function alreadyActive(running: AdProgram, partnerId: string): Rejection {
  return running.partner_id === partnerId
    ? {
        code: 'PROGRAM_ALREADY_REQUESTED',
        message: `A ${running.program_type} program is already requested for this business (${running.id}).`,
      }
    : {
        code: 'PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER',
        message: `The business already has a ${running.program_type} program from another provider.`,
      };
}

/**
 * A promotion code (docs/contract/advertising.md §8.9): valid when the operator's code is active, covers the program
 * type, the business is a new advertiser (no program of any partner ran in the last six months),
 * and a CPC budget is within the code's range. An invalid code rejects the program.
 */
function promotionProblem(facts: CreateFacts, budget: number | undefined): { rejection: Rejection & { key: string } } | { months: number } {
  const { request, promotion, programs, now } = facts;
  const invalidCode = (why: string) => ({
    rejection: { key: 'promotion_code', code: 'INVALID_OR_MISSING_KEY', message: `Invalid promotion_code: ${why}` },
  });
  if (!promotion || promotion.active !== 1) return invalidCode('no such active promotion.');
  if (!storedStrings(promotion.program_types).includes(request.program_name))
    return invalidCode(`it does not apply to ${request.program_name}.`);
  const since = now - NEW_ADVERTISER_DAYS * 86_400_000;
  if (programs.some((p) => p.state !== 'CANCELED' && (p.state === 'ACTIVE' || (p.ended_at ?? p.end_at ?? now) >= since))) {
    return invalidCode('promotions are for new advertisers; the business advertised in the last six months.');
  }
  if (request.program_name === 'CPC' && budget !== undefined && outsideRange(budget, promotion)) {
    return {
      rejection: {
        key: 'budget',
        code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS',
        message: `The promotion needs a budget ${rangeText(promotion)}.`,
      },
    };
  }
  return { months: promotion.months };
}

export type BudgetRange = Pick<AdPromotion, 'code' | 'min_budget' | 'max_budget'>;

export function outsideRange(budget: number, promotion: BudgetRange): boolean {
  return (
    (promotion.min_budget !== null && budget < promotion.min_budget) || (promotion.max_budget !== null && budget > promotion.max_budget)
  );
}

export function rangeText(promotion: BudgetRange): string {
  if (promotion.min_budget !== null && promotion.max_budget !== null)
    return `between ${promotion.min_budget} and ${promotion.max_budget} cents`;
  return promotion.min_budget !== null ? `of at least ${promotion.min_budget} cents` : `of at most ${promotion.max_budget} cents`;
}
