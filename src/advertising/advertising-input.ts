import { apiError } from '../platform/errors.js';
import { parseDate } from '../platform/local-time.js';
import { isOneOf, list, single } from '../platform/query.js';
import { PROGRAM_TYPES, type ProgramType } from './advertising-tables.js';

/**
 * The advertising requests' form (400 INVALID_REQUEST at the request): what a create or an edit
 * must look like before a job is written. Substance (prices, dates against today, conflicts) is
 * the job's, in advertising-judge.ts; docs/advertising.md has the table of which is which.
 */

/** A create request as the job judges it: checked for form at the request, for substance in the job. */
export interface CreateRequest {
  business_id: string;
  program_name: ProgramType;
  start?: string;
  end?: string;
  /** As sent: the job decides whether it is a price (INVALID_PRICE otherwise). */
  budget?: string;
  max_bid?: string;
  is_autobid?: boolean;
  /** As sent; absent: the currency of the business's running programs, else USD. */
  currency?: string;
  pacing_method?: 'paced' | 'unpaced';
  fee_period: 'CALENDAR_MONTH' | 'ROLLING_MONTH';
  ad_categories: string[];
  promotion_code?: string;
}

/**
 * An edit as the job judges it (spec: start, end, budget, future_budget_date, max_bid, pacing_method,
 * ad_categories; also currency and fee_period, which real clients send).
 */
export interface EditRequest {
  program_id: string;
  start?: string;
  end?: string;
  budget?: string;
  max_bid?: string;
  future_budget_date?: string;
  pacing_method?: 'paced' | 'unpaced';
  ad_categories?: string[];
  currency?: string;
  fee_period?: 'CALENDAR_MONTH' | 'ROLLING_MONTH';
}

/** An end request: the program to end (a job of kind `end` stores this). */
export interface EndRequest {
  program_id: string;
}

/** The keys an edit may change, in the order its receipt lists them. */
export const EDITABLE = [
  'start',
  'end',
  'budget',
  'max_bid',
  'future_budget_date',
  'pacing_method',
  'ad_categories',
  'currency',
  'fee_period',
] as const;

/** Every parameter's size cap: ids, codes and prices are short; anything longer is not one. */
const MAX_PARAMETER_LENGTH = 200;
const MAX_LIST_ITEMS = 50;

/** 400 Invalid Request (spec, Advertising general status codes), naming the parameter. */
export function invalid(field: string, message: string): never {
  throw apiError('INVALID_REQUEST', message, { field });
}

/** Reads a request's parameters: `text` (absent or empty: undefined) and `date` (YYYY-MM-DD, else 400), and the shared enums. */
function reader(params: Record<string, unknown>) {
  const text = (name: string) => {
    const value = single(params[name]);
    if (value !== undefined && value.length > MAX_PARAMETER_LENGTH)
      invalid(name, `${name} is longer than ${MAX_PARAMETER_LENGTH} characters`);
    return value === undefined || value === '' ? undefined : value;
  };
  /** A list parameter: at most MAX_LIST_ITEMS entries of at most MAX_PARAMETER_LENGTH characters. */
  const items = (name: string) => {
    const values = list(params[name]);
    if (values.length > MAX_LIST_ITEMS || values.some((v) => v.length > MAX_PARAMETER_LENGTH)) {
      invalid(name, `${name} takes at most ${MAX_LIST_ITEMS} entries of at most ${MAX_PARAMETER_LENGTH} characters`);
    }
    return values;
  };
  const date = (field: string) => {
    const value = text(field);
    if (value !== undefined && !parseDate(value)) invalid(field, `${field} must be a date YYYY-MM-DD`);
    return value;
  };
  const oneOf = <T extends string>(field: string, values: readonly T[]): T | undefined => {
    const value = text(field);
    if (value === undefined) return undefined;
    if (!isOneOf(values, value)) return invalid(field, `${field} must be ${values.join(' or ')}`);
    return value;
  };
  const currency = () => {
    const value = text('currency');
    if (value !== undefined && !/^[A-Z]{3}$/.test(value)) invalid('currency', 'currency must be an ISO 4217 code such as USD');
    return value;
  };
  return { text, items, date, oneOf, currency };
}

/** `POST /v1/reseller/program/create`'s parameters, checked for form. */
export function parseCreate(params: Record<string, unknown>): CreateRequest {
  const { text, items, date, oneOf, currency } = reader(params);
  const businessId = text('business_id') ?? invalid('business_id', 'business_id is required');
  const name = text('program_name') ?? invalid('program_name', 'program_name is required');
  if (!isOneOf(PROGRAM_TYPES, name)) return invalid('program_name', `program_name must be one of ${PROGRAM_TYPES.join(', ')}`);
  const autobid = text('is_autobid');
  if (autobid !== undefined && !/^(true|false)$/i.test(autobid)) invalid('is_autobid', 'is_autobid must be true or false');
  const isAutobid = autobid === undefined ? undefined : autobid.toLowerCase() === 'true';
  const pacing = oneOf('pacing_method', ['paced', 'unpaced'] as const);
  if (pacing === 'unpaced' && isAutobid === true) invalid('pacing_method', 'pacing_method unpaced is not allowed with is_autobid true');
  return {
    business_id: businessId,
    program_name: name,
    start: date('start'),
    end: date('end'),
    budget: text('budget'),
    max_bid: text('max_bid'),
    is_autobid: isAutobid,
    currency: currency(),
    pacing_method: pacing,
    fee_period: oneOf('fee_period', ['CALENDAR_MONTH', 'ROLLING_MONTH'] as const) ?? 'CALENDAR_MONTH',
    ad_categories: items('ad_categories'),
    promotion_code: text('promotion_code'),
  };
}

/** `POST /v1/reseller/program/{program_id}/edit`'s parameters: dates in form, known enums, something to change. */
export function parseEdit(programId: string, params: Record<string, unknown>): EditRequest {
  const { text, items, date, oneOf, currency } = reader(params);
  const request: EditRequest = {
    program_id: programId,
    start: date('start'),
    end: date('end'),
    budget: text('budget'),
    max_bid: text('max_bid'),
    future_budget_date: date('future_budget_date'),
    pacing_method: oneOf('pacing_method', ['paced', 'unpaced'] as const),
    ad_categories: params.ad_categories === undefined ? undefined : items('ad_categories'),
    currency: currency(),
    fee_period: oneOf('fee_period', ['CALENDAR_MONTH', 'ROLLING_MONTH'] as const),
  };
  if (Object.entries(request).every(([key, value]) => key === 'program_id' || value === undefined)) {
    invalid('program_id', `Nothing to modify: give ${EDITABLE.join(', ')}`);
  }
  return request;
}
