import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CreateRequest, EditRequest } from '../../src/advertising/advertising-input.js';
import { judgeCreate, type BusinessFacts, type CreateFacts } from '../../src/advertising/advertising-judge.js';
import { judgeEdit, judgeEnd, type EditFacts } from '../../src/advertising/advertising-edit-judge.js';
import type { AdProgram, AdPromotion } from '../../src/advertising/advertising-store.js';

// The judge of advertising jobs, without a database: one case per job error code (docs/advertising.md).

/** 2026-06-15 12:00 Pacific (19:00 UTC): "today" is 2026-06-15 for the judge. */
const NOW = Date.UTC(2026, 5, 15, 19);
const DAY = 86_400_000;

const business = (change: Partial<BusinessFacts> = {}): BusinessFacts => ({
  closed: false,
  removedFromSearch: false,
  restricted: false,
  categories: ['pizza', 'italian'],
  specialties: 'Wood-fired pizza',
  ...change,
});

const program = (change: Partial<AdProgram> = {}): AdProgram => ({
  id: 'P1',
  partner_id: 'me',
  business_id: 'B1',
  program_type: 'CPC',
  state: 'ACTIVE',
  start_at: NOW - 30 * DAY,
  end_at: null,
  start_date: '2026-05-16',
  end_date: null,
  budget: 50_000,
  currency: 'USD',
  is_autobid: 0,
  max_bid: 100,
  pacing_method: 'unpaced',
  fee_period: 'CALENDAR_MONTH',
  ad_categories: '[]',
  pause_status: 'NOT_PAUSED',
  ended_at: null,
  created_at: NOW - 30 * DAY,
  updated_at: NOW - 30 * DAY,
  parent_program_id: null,
  promotion_code: null,
  future_budget: null,
  future_budget_date: null,
  ...change,
});

const promotion = (change: Partial<AdPromotion> = {}): AdPromotion => ({
  code: 'WELCOME',
  program_types: '["CPC"]',
  min_budget: 10_000,
  max_budget: 100_000,
  months: 6,
  active: 1,
  created_at: 0,
  ...change,
});

const cpcCreate = (change: Partial<CreateRequest> = {}): CreateRequest => ({
  business_id: 'B1',
  program_name: 'CPC',
  budget: '50000',
  max_bid: '100',
  is_autobid: false,
  fee_period: 'CALENDAR_MONTH',
  ad_categories: [],
  ...change,
});

function create(request: Partial<CreateRequest>, facts: Partial<CreateFacts> = {}) {
  return judgeCreate({
    request: cpcCreate(request),
    partnerId: 'me',
    now: NOW,
    business: business(),
    programs: [],
    declined: [],
    promotion: undefined,
    ...facts,
  });
}

/** The one code of a create's verdict: its refusal, or the error of `key`. */
function createCode(key: string | null, request: Partial<CreateRequest>, facts: Partial<CreateFacts> = {}) {
  const verdict = create(request, facts);
  if (verdict.refusal) return verdict.refusal.code;
  return key === null ? undefined : verdict.errors[key]?.code;
}

function editCode(key: string | null, request: Omit<EditRequest, 'program_id'>, facts: Partial<EditFacts> = {}) {
  const verdict = judgeEdit({
    request: { program_id: 'P1', ...request },
    program: program(),
    now: NOW,
    business: business(),
    spentThisPeriod: 0,
    promotions: [],
    declined: [],
    ...facts,
  });
  if (verdict.refusal) return verdict.refusal.code;
  return key === null ? undefined : verdict.errors[key]?.code;
}

describe('the advertising judge: creates', () => {
  it('accepts a well-formed CPC program and settles its values', () => {
    const verdict = create({});
    expect(verdict.refusal).toBeUndefined();
    if (verdict.refusal) return;
    expect(verdict.errors).toEqual({});
    expect(verdict).toMatchObject({ startDate: '2026-06-15', currency: 'USD', budget: 50_000, promotionMonths: undefined });
  });

  it('refuses a closed business or one removed from search whole', () => {
    expect(createCode(null, {}, { business: business({ closed: true }) })).toBe('BUSINESS_NOT_ACTIVE');
    expect(createCode(null, {}, { business: business({ removedFromSearch: true }) })).toBe(
      'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH',
    );
  });

  it('refuses dates in the past', () => {
    expect(createCode('start', { start: '2026-06-14' })).toBe('CANNOT_ADD_PROGRAM_IN_PAST');
    expect(createCode('end', { start: '2026-07-01', end: '2026-06-30' })).toBe('CANNOT_ADD_PROGRAM_IN_PAST');
  });

  it('refuses a business restricted from advertising', () => {
    expect(createCode('program_name', {}, { business: business({ restricted: true }) })).toBe('BUSINESS_RESTRICTED_FROM_ADVERTISING');
  });

  it('keeps the currency of the running programs', () => {
    expect(createCode('currency', { program_name: 'EP', currency: 'CAD' }, { programs: [program({ currency: 'USD' })] })).toBe(
      'CURRENCY_MISMATCH',
    );
    const settled = create({ program_name: 'EP' }, { programs: [program({ currency: 'CAD' })] });
    expect(!settled.refusal && settled.currency).toBe('CAD');
  });

  it('needs CPC prices in whole cents, above the minimums, and a bid the budget can pay', () => {
    expect(createCode('budget', { budget: undefined })).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('budget', { budget: '12.50' })).toBe('INVALID_PRICE');
    expect(createCode('budget', { budget: '2499' })).toBe('INVALID_PRICE');
    expect(createCode('max_bid', { max_bid: '49' })).toBe('INVALID_PRICE');
    expect(createCode('max_bid', { max_bid: undefined, is_autobid: false })).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('is_autobid', { is_autobid: undefined })).toBe('INVALID_OR_MISSING_KEY');
    // June 15 to 30 is 16 of 30 days: 2,500 cents a month prorate to 1,333.
    expect(createCode('max_bid', { budget: '2500', max_bid: '1334' })).toBe('BID_TOO_HIGH_FOR_BUDGET');
    expect(createCode('max_bid', { budget: '2500', max_bid: '1333' })).toBeUndefined();
  });

  it('needs categories and specialties for CPC', () => {
    expect(createCode('program_name', {}, { business: business({ categories: [] }) })).toBe('NO_CATEGORIES');
    expect(create({}, { business: business({ specialties: ' ' }) })).toMatchObject({
      errors: { program_name: { code: 'INVALID_OR_MISSING_KEY' } },
    });
  });

  it('checks the ad categories against the business and the operator policy', () => {
    expect(createCode('ad_categories', { ad_categories: ['sushi'] })).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('ad_categories', { ad_categories: ['pizza'] }, { declined: [{ category: 'pizza', reason: 'policy' }] })).toBe(
      'UNSUPPORTED_CATEGORIES',
    );
    // None named: refused only when every category of the business is declined.
    expect(createCode('program_name', {}, { declined: [{ category: 'pizza', reason: 'policy' }] })).toBeUndefined();
    const all = [
      { category: 'pizza', reason: 'policy' },
      { category: 'italian', reason: 'policy' },
    ];
    expect(createCode('program_name', {}, { declined: all })).toBe('UNSUPPORTED_CATEGORIES');
  });

  it('refuses the same type running, the exclusive sibling, and a start on the last day of an ended one', () => {
    expect(createCode('program_name', {}, { programs: [program()] })).toBe('PROGRAM_ALREADY_REQUESTED');
    expect(createCode('program_name', {}, { programs: [program({ partner_id: 'other' })] })).toBe(
      'PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER',
    );
    expect(createCode('program_name', { program_name: 'BP' }, { programs: [program({ program_type: 'EP' })] })).toBe(
      'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM',
    );
    const endedToday = program({ state: 'ENDED', ended_at: NOW - 60_000 });
    expect(createCode('program_name', {}, { programs: [endedToday] })).toBe('CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM');
    expect(createCode('program_name', { start: '2026-06-16' }, { programs: [endedToday] })).toBeUndefined();
  });

  it('judges promotion codes: active, for the type, for new advertisers, and the budget in range', () => {
    const withCode = { promotion_code: 'WELCOME' };
    expect(createCode('promotion_code', withCode)).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('promotion_code', withCode, { promotion: promotion({ active: 0 }) })).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('promotion_code', { ...withCode, program_name: 'EP' }, { promotion: promotion() })).toBe('INVALID_OR_MISSING_KEY');
    const lastMonth = program({ state: 'ENDED', ended_at: NOW - 30 * DAY, program_type: 'EP' });
    expect(createCode('promotion_code', withCode, { promotion: promotion(), programs: [lastMonth] })).toBe('INVALID_OR_MISSING_KEY');
    expect(createCode('budget', { ...withCode, budget: '200000', max_bid: '100' }, { promotion: promotion() })).toBe(
      'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS',
    );
    const fine = create(withCode, { promotion: promotion() });
    expect(!fine.refusal && fine.promotionMonths).toBe(6);
  });
});

describe('the advertising judge: edits and ends', () => {
  it('refuses whole: a closed business, one removed from search, an ended program', () => {
    expect(editCode(null, { budget: '60000' }, { business: business({ closed: true }) })).toBe('PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS');
    expect(editCode(null, { budget: '60000' }, { business: business({ removedFromSearch: true }) })).toBe(
      'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH',
    );
    expect(editCode(null, { budget: '60000' }, { program: program({ state: 'ENDED', ended_at: NOW - DAY }) })).toBe('PROGRAM_HAS_EXPIRED');
  });

  it('judges the budget: a price, the minimum, the spend so far, a running promotion', () => {
    expect(editCode('budget', { budget: 'ten' })).toBe('INVALID_PRICE');
    expect(editCode('budget', { budget: '2000' })).toBe('INVALID_PRICE');
    expect(editCode('budget', { budget: '30000' }, { spentThisPeriod: 30_001 })).toBe('CANNOT_DECREASE_BUDGET_BELOW_AMOUNT_ALREADY_SPENT');
    // A scheduled budget is not judged against this period's spend.
    expect(editCode('budget', { budget: '30000', future_budget_date: '2026-07-01' }, { spentThisPeriod: 30_001 })).toBeUndefined();
    expect(editCode('budget', { budget: '200000' }, { promotions: [promotion()] })).toBe('CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS');
  });

  it('judges a scheduled budget date', () => {
    expect(editCode('future_budget_date', { future_budget_date: '2026-07-01' })).toBe('INVALID_OR_MISSING_KEY');
    expect(editCode('future_budget_date', { budget: '60000', future_budget_date: '2026-06-15' })).toBe('CANNOT_ADD_PROGRAM_IN_PAST');
  });

  it('refuses what cannot change: a promotion, a started program’s start and fee period, max_bid under autobid, unpaced autobid, an end before today', () => {
    expect(editCode('budget', { budget: '60000' }, { program: program({ parent_program_id: 'P0' }) })).toBe('COULD_NOT_MODIFY_PROGRAM');
    expect(editCode('start', { start: '2026-07-01' })).toBe('COULD_NOT_MODIFY_PROGRAM');
    expect(editCode('fee_period', { fee_period: 'ROLLING_MONTH' })).toBe('COULD_NOT_MODIFY_PROGRAM');
    expect(editCode('max_bid', { max_bid: '100' }, { program: program({ is_autobid: 1 }) })).toBe('COULD_NOT_MODIFY_PROGRAM');
    expect(editCode('pacing_method', { pacing_method: 'unpaced' }, { program: program({ is_autobid: 1 }) })).toBe(
      'COULD_NOT_MODIFY_PROGRAM',
    );
    expect(editCode('end', { end: '2026-06-14' })).toBe('COULD_NOT_MODIFY_PROGRAM');
    const future = program({ start_at: NOW + 10 * DAY, start_date: '2026-06-25' });
    expect(editCode('start', { start: '2026-06-01' }, { program: future })).toBe('CANNOT_ADD_PROGRAM_IN_PAST');
  });

  it('judges a bid against the budget, the currency and the categories', () => {
    expect(editCode('max_bid', { max_bid: '40000' })).toBe('BID_TOO_HIGH_FOR_BUDGET');
    expect(editCode('currency', { currency: 'EUR' })).toBe('CURRENCY_MISMATCH');
    expect(editCode('ad_categories', { ad_categories: ['pizza'] }, { declined: [{ category: 'pizza', reason: 'policy' }] })).toBe(
      'UNSUPPORTED_CATEGORIES',
    );
    expect(editCode('ad_categories', { ad_categories: ['sushi'] })).toBe('INVALID_OR_MISSING_KEY');
    expect(editCode(null, { budget: '60000', max_bid: '200', end: '2026-12-31' })).toBeUndefined();
  });

  it('refuses to end an ended program or one of a closed business', () => {
    expect(judgeEnd({ program: program({ end_at: NOW - 1 }), now: NOW, business: { closed: false } })?.code).toBe('PROGRAM_HAS_EXPIRED');
    expect(judgeEnd({ program: program(), now: NOW, business: { closed: true } })?.code).toBe('PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS');
    expect(judgeEnd({ program: program(), now: NOW, business: { closed: false } })).toBeUndefined();
  });

  it('has a case for every code the judge can give', () => {
    const source = readFileSync(new URL('../../src/advertising/advertising-judge.ts', import.meta.url), 'utf8');
    const codes = new Set([...source.matchAll(/code: '([A-Z_]+)'/g)].map((m) => m[1]));
    // Whitespace removed: the formatter may break a `.toBe('CODE')` over lines (with a trailing comma).
    const tested = readFileSync(new URL(import.meta.url), 'utf8').replace(/\s+/g, '');
    expect(codes.size).toBeGreaterThan(10);
    for (const code of codes) expect(tested, code).toMatch(new RegExp(`toBe\\('${code}',?\\)`));
  });
});
