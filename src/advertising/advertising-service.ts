import type { Business } from '../businesses/business-record.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Principal } from '../platform/auth/principal.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, type PendingIdempotency } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { localDate, parseDate } from '../platform/local-time.js';
import { list, single } from '../platform/query.js';
import { SettingsStore } from '../platform/settings.js';
import { defineTask, type TaskRunner } from '../platform/tasks/task-runner.js';
import {
  AD_EVENT_TYPES,
  cents,
  endOfDay,
  lastDayMonthsAfter,
  MIN_BID,
  MIN_BUDGET,
  NEW_ADVERTISER_DAYS,
  PACIFIC,
  periodStart,
  programEvent,
  programStatus,
  programView,
  proratedBudget,
  ownedProgram,
  startOfDay,
  type ProgramChange,
} from './advertising-rules.js';
import { AdvertisingStore, type AdJob, type AdProgram } from './advertising-store.js';
import { PROGRAM_TYPES, type ProgramType } from './advertising-tables.js';

/** Applies one advertising job (create, edit, end) after the configured processing delay. */
export const APPLY_AD_JOB = defineTask<{ job_id: string }>(
  'advertising.apply',
  { type: 'object', required: ['job_id'], additionalProperties: false, properties: { job_id: { type: 'string', minLength: 1 } } },
  { maxAttempts: 20 },
);

/** The sandbox setting that holds every new job until the operator releases or completes it. */
export const HOLD_NEW_JOBS_SETTING = 'advertising.hold_new_jobs';

/** How many receipts (of each kind) the status endpoint keeps in memory (about 1 KB each). */
const RECEIPTS_KEPT = 20_000;
/** How long a job read as PROCESSING is answered so without asking the database again. */
const PROCESSING_VERDICT_MS = 200;

/** Stores a receipt in a bounded map (emptied when full: cheaper than an LRU, and refilled by the next polls). */
function remember<T>(map: Map<string, T>, key: string, value: T) {
  if (map.size >= RECEIPTS_KEPT && !map.has(key)) map.clear();
  map.set(key, value);
}

/** Branded and Enhanced Profile are one page upgrade in two sizes: a business has one or the other. */
const EXCLUSIVE: Partial<Record<ProgramType, ProgramType>> = { BP: 'EP', EP: 'BP' };

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

/** An edit as the job judges it (spec: start, end, budget, future_budget_date, max_bid, pacing_method, ad_categories; also currency and fee_period, which real clients send). */
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

type Entry = { status: 'COMPLETED' | 'PROCESSING' | 'REJECTED'; requested_value: unknown; error?: { message: string; code: string } };
type Rejection = { code: string; message: string };
type BusinessResult = { status: 'COMPLETED' | 'REJECTED'; identifier_type: 'BUSINESS' | 'PROGRAM'; identifier: string; [key: string]: unknown };

/** 400 Invalid Request (spec, Advertising general status codes), naming the parameter. */
function invalid(field: string, message: string): never {
  throw apiError('INVALID_REQUEST', message, { field });
}

/** Every parameter's size cap: ids, codes and prices are short; anything longer is not one. */
const MAX_PARAMETER_LENGTH = 200;
const MAX_LIST_ITEMS = 50;

const missingKey = (key: string): Rejection => ({ code: 'INVALID_OR_MISSING_KEY', message: `Required keys are invalid or missing: ${key}` });
const PARENT_WAS_REJECTED: Rejection = { code: 'PARENT_WAS_REJECTED', message: 'Another part of the request failed.' };

/** Reads a request's parameters: `text` (absent or empty: undefined) and `date` (YYYY-MM-DD, else 400), and the shared enums. */
function reader(params: Record<string, unknown>) {
  const text = (name: string) => {
    const value = single(params[name]);
    if (value !== undefined && value.length > MAX_PARAMETER_LENGTH) invalid(name, `${name} is longer than ${MAX_PARAMETER_LENGTH} characters`);
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
    if (value !== undefined && !(values as readonly string[]).includes(value)) invalid(field, `${field} must be ${values.join(' or ')}`);
    return value as T | undefined;
  };
  const currency = () => {
    const value = text('currency');
    if (value !== undefined && !/^[A-Z]{3}$/.test(value)) invalid('currency', 'currency must be an ISO 4217 code such as USD');
    return value;
  };
  return { text, items, date, oneOf, currency };
}

/** The keys of program_added (spec; facts §8.4), each made into an entry by `entry`; currency, ad_categories and promotion_code when sent. */
function addedKeys(request: CreateRequest, startDate: string, programId: string | null, entry: (key: string, value: unknown) => Entry) {
  const added: Record<string, Entry> = {
    start: entry('start', startDate),
    end: entry('end', request.end ?? null),
    program_name: entry('program_name', request.program_name),
    program_id: entry('program_id', programId),
    // facts.md §8.4: current clients read yelp_business_id; the spec names it svc_business_id.
    yelp_business_id: entry('yelp_business_id', request.business_id),
    svc_business_id: entry('svc_business_id', request.business_id),
  };
  if (request.program_name === 'CPC') {
    added.is_autobid = entry('is_autobid', request.is_autobid ?? null);
    added.max_bid = entry('max_bid', cents(request.max_bid) ?? request.max_bid ?? null);
    added.budget = entry('budget', cents(request.budget) ?? request.budget ?? null);
  }
  if (request.currency !== undefined) added.currency = entry('currency', request.currency);
  if (request.ad_categories.length > 0) added.ad_categories = entry('ad_categories', request.ad_categories);
  if (request.promotion_code !== undefined) added.promotion_code = entry('promotion_code', request.promotion_code);
  return added;
}

const EDITABLE = ['start', 'end', 'budget', 'max_bid', 'future_budget_date', 'pacing_method', 'ad_categories', 'currency', 'fee_period'] as const;

/** The keys of program_modified: program_id and each key the edit changes (prices as numbers when they are). */
function modifiedKeys(request: EditRequest, entry: (key: string, value: unknown) => Entry) {
  const modified: Record<string, Entry> = { program_id: entry('program_id', request.program_id) };
  for (const key of EDITABLE) {
    const value = request[key];
    if (value !== undefined) modified[key] = entry(key, key === 'budget' || key === 'max_bid' ? (cents(value as string) ?? value) : value);
  }
  return modified;
}

/** The entries of a judged request: all COMPLETED, or all REJECTED (each with its own error or PARENT_WAS_REJECTED). */
function entries(errors: Record<string, Rejection>) {
  const rejected = Object.keys(errors).length > 0;
  return (key: string, value: unknown): Entry =>
    rejected ? { status: 'REJECTED', requested_value: value, error: errors[key] ?? PARENT_WAS_REJECTED } : { status: 'COMPLETED', requested_value: value };
}

/** What the job judges against: the business, the operator's flags on it, and its programs (every partner's). */
interface Situation {
  business: Business;
  removedFromSearch: boolean;
  restricted: boolean;
  programs: AdProgram[];
}

/**
 * The advertising reseller interface (spec part 2; facts.md §8). Requests are checked for form
 * (400) and answered with a job id; the job judges them for substance in the background and
 * writes the receipt with the program change. The full table of which rule is the request's and
 * which the job's, with the condition behind each job error code, is docs/advertising.md.
 */
export class AdvertisingService {
  /** Receipts of completed jobs as JSON text (immutable, so any process may keep them). */
  private readonly completedReceipts = new Map<string, { partnerId: string; body: string }>();
  /**
   * Receipts of jobs seen PROCESSING, as JSON text, with how long (wall clock) that verdict
   * stands: a job applied by this process is dropped at once; one applied by another process
   * shows as COMPLETED at most PROCESSING_VERDICT_MS later (clients are told Retry-After: 1).
   */
  private readonly processingReceipts = new Map<string, { partnerId: string; body: string; until: number }>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly businesses: BusinessDirectory,
    private readonly options: { processingDelayMs: number; onEventsCommitted?: () => void },
  ) {}

  store(db: DbOrTx = this.database.db) {
    return new AdvertisingStore(db, this.database.dialect);
  }

  // ---- requests ------------------------------------------------------------------------------

  parseCreate(params: Record<string, unknown>): CreateRequest {
    const { text, items, date, oneOf, currency } = reader(params);
    const businessId = text('business_id') ?? invalid('business_id', 'business_id is required');
    const name = text('program_name') ?? invalid('program_name', 'program_name is required');
    if (!(PROGRAM_TYPES as readonly string[]).includes(name)) invalid('program_name', `program_name must be one of ${PROGRAM_TYPES.join(', ')}`);
    const autobid = text('is_autobid');
    if (autobid !== undefined && !/^(true|false)$/i.test(autobid)) invalid('is_autobid', 'is_autobid must be true or false');
    const isAutobid = autobid === undefined ? undefined : autobid.toLowerCase() === 'true';
    const pacing = oneOf('pacing_method', ['paced', 'unpaced'] as const);
    if (pacing === 'unpaced' && isAutobid === true) invalid('pacing_method', 'pacing_method unpaced is not allowed with is_autobid true');
    return {
      business_id: businessId,
      program_name: name as ProgramType,
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

  /** Request-level checks of an edit (400): dates in form, known enums, something to change. */
  parseEdit(programId: string, params: Record<string, unknown>): EditRequest {
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

  /** `POST /v1/reseller/program/create`: the job, written with its task (and Idempotency-Key answer). */
  async create(principal: Principal, params: Record<string, unknown>, pending?: PendingIdempotency) {
    const request = this.parseCreate(params);
    const business = await this.businesses.requireRef(request.business_id);
    return this.newJob(principal.partnerId, 'create', { ...request, business_id: business.id }, business.id, null, pending);
  }

  /** `POST /v1/reseller/program/{program_id}/edit`. Another partner's program answers like an unknown one. */
  async edit(principal: Principal, programId: string, params: Record<string, unknown>, pending?: PendingIdempotency) {
    const program = await this.ownProgram(principal.partnerId, programId);
    const request = this.parseEdit(program.id, params);
    return this.newJob(principal.partnerId, 'edit', request, program.business_id, program.id, pending);
  }

  /** `POST /v1/reseller/program/{program_id}/end`. Another partner's program answers like an unknown one. */
  async end(principal: Principal, programId: string, pending?: PendingIdempotency) {
    const program = await this.ownProgram(principal.partnerId, programId);
    return this.newJob(principal.partnerId, 'end', { program_id: program.id }, program.business_id, program.id, pending);
  }

  /**
   * `POST /program/{program_id}/pause/v1` and `…/resume/v1` (spec: "coming soon"): a running CPC
   * program is paused or resumed at once (202, empty body). Not CPC → 400; ended, or already in
   * that state → 409 CONFLICT; another partner's program → 404.
   */
  async setPaused(principal: Principal, programId: string, paused: boolean, pending?: PendingIdempotency): Promise<void> {
    const program = await this.ownProgram(principal.partnerId, programId);
    if (program.program_type !== 'CPC') invalid('program_id', 'Only CPC programs can be paused and resumed.');
    const now = this.clock.now();
    if (programStatus(program, now) === 'INACTIVE') throw apiError('CONFLICT', 'The program has ended.');
    if ((program.pause_status === 'PAUSED') === paused) throw apiError('CONFLICT', `The program is already ${paused ? 'paused' : 'running'}.`);
    await this.database.transact(async (trx) => {
      // Conditional, so of two concurrent pauses one changes the program and the other is told so.
      if (!(await this.store(trx).setPauseStatus(program.id, paused ? 'PAUSED' : 'NOT_PAUSED', now))) {
        throw apiError('CONFLICT', `The program is already ${paused ? 'paused' : 'running'}.`);
      }
      await recordEvent(trx, this.database.dialect, programEvent(program, paused ? 'PAUSED' : 'RESUMED', now));
      await answerWithinChange(trx, pending, 202, undefined);
    });
    this.options.onEventsCommitted?.();
  }

  /**
   * `GET /v1/reseller/status/{job_id}`: the receipt as JSON text, with 202 while the job is
   * PROCESSING (facts §8.4: "Job not complete") and 200 once COMPLETED. Another partner's job is
   * 404. A completed receipt never changes, so its text is kept in memory and polls of it are
   * answered without the database; the stored results are embedded as written. A PROCESSING
   * verdict is reused for PROCESSING_VERDICT_MS.
   */
  async status(principal: Principal, jobId: string): Promise<{ statusCode: 200 | 202; body: string }> {
    const known = this.completedReceipts.get(jobId);
    if (known) {
      if (known.partnerId !== principal.partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
      return { statusCode: 200, body: known.body };
    }
    const processing = this.processingReceipts.get(jobId);
    if (processing && processing.until > Date.now()) {
      if (processing.partnerId !== principal.partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
      return { statusCode: 202, body: processing.body };
    }
    const job = await this.store().findJob(jobId);
    if (!job || job.partner_id !== principal.partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
    if (job.status !== 'COMPLETED' || job.results === null) {
      const body = processing?.body ?? JSON.stringify(this.receipt(job));
      remember(this.processingReceipts, jobId, { partnerId: job.partner_id, body, until: Date.now() + PROCESSING_VERDICT_MS });
      return { statusCode: 202, body };
    }
    this.processingReceipts.delete(jobId);
    const body = `{"status":"COMPLETED","created_at":"${toIsoOffset(job.created_at)}","completed_at":"${toIsoOffset(job.completed_at!)}","business_results":${job.results}}`;
    remember(this.completedReceipts, jobId, { partnerId: job.partner_id, body });
    return { statusCode: 200, body };
  }

  /** A job's receipt (spec; facts §8.4), the partner's and the operator's view alike. */
  receipt(job: AdJob) {
    const results = job.results !== null ? (JSON.parse(job.results) as object[]) : [this.processingResult(job)];
    return {
      status: job.status,
      created_at: toIsoOffset(job.created_at),
      completed_at: job.completed_at === null ? null : toIsoOffset(job.completed_at),
      business_results: results,
    };
  }

  // ---- listings (facts.md §8.7) ----------------------------------------------------------------

  /**
   * `GET /v1/programs/list/{business_ids}`: the caller's programs per business (the route has
   * checked every id is linked), `start`/`limit` paging each business's list.
   */
  async programsByBusiness(principal: Principal, idsOrAliases: string[], page: { start: number; limit: number }) {
    const resolved = await this.businesses.resolveIds(idsOrAliases);
    const ids = [...new Set(idsOrAliases.map((id) => resolved.get(id)!))];
    const programs = await this.store().partnerProgramsOf(principal.partnerId, ids);
    const totals = await this.store().totals(programs.map((p) => p.id));
    const features = await this.store().featureTypesOf(programs.map((p) => p.id));
    const now = this.clock.now();
    return {
      businesses: ids.map((id) => {
        const own = programs.filter((p) => p.business_id === id);
        const running = own.some((p) => programStatus(p, now) === 'ACTIVE');
        return {
          yelp_business_id: id,
          destination_yelp_business_id: null,
          advertiser_status: running ? 'CURRENT_ADVERTISER' : own.length > 0 ? 'PAST_ADVERTISER' : 'NON_ADVERTISER',
          partner_business_id: null,
          total: own.length,
          programs: own.slice(page.start, page.start + page.limit).map((p) => programView(p, totals.get(p.id), now, features.get(p.id))),
        };
      }),
    };
  }

  /** `GET /v1/programs/info/{program_ids}`: the caller's programs by id; any id unknown or not the caller's → 404. */
  async programsById(principal: Principal, ids: string[], start: number) {
    const unique = [...new Set(ids)];
    const programs = await this.store().partnerPrograms(principal.partnerId, unique);
    const found = new Map(programs.map((p) => [p.id, p]));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) throw apiError('NOT_FOUND', `Not Found: no such program ${missing.slice(0, 5).join(', ')}`);
    const totals = await this.store().totals(unique);
    const features = await this.store().featureTypesOf(unique);
    const now = this.clock.now();
    return { programs: unique.slice(start).map((id) => programView(found.get(id)!, totals.get(id), now, features.get(id))) };
  }

  /**
   * `GET /programs/v1`: every program of the caller's account, filtered by status (facts §8.7):
   * CURRENT (running now), FUTURE (starts later), PAST (ended), PAUSED, ALL.
   */
  async accountPrograms(principal: Principal, query: { program_status: string; offset: number; limit: number }) {
    const now = this.clock.now();
    const all = await this.store().allPartnerPrograms(principal.partnerId);
    const matches = all.filter((p) => {
      const active = programStatus(p, now) === 'ACTIVE';
      switch (query.program_status) {
        case 'PAST':
          return !active;
        case 'PAUSED':
          return active && p.pause_status === 'PAUSED';
        case 'FUTURE':
          return active && p.start_at > now;
        case 'CURRENT':
          return active && p.start_at <= now;
        default:
          return true;
      }
    });
    const page = matches.slice(query.offset, query.offset + query.limit);
    const totals = await this.store().totals(page.map((p) => p.id));
    const features = await this.store().featureTypesOf(page.map((p) => p.id));
    return {
      program_status: query.program_status,
      total: matches.length,
      limit: query.limit,
      offset: query.offset,
      payment_programs: page.map((p) => ({
        ...programView(p, totals.get(p.id), now, features.get(p.id)),
        businesses: [{ yelp_business_id: p.business_id, partner_business_id: null }],
      })),
    };
  }

  // ---- jobs ----------------------------------------------------------------------------------

  private async newJob(partnerId: string, kind: AdJob['kind'], request: object, businessId: string, programId: string | null, pending?: PendingIdempotency) {
    const id = newId();
    const now = this.clock.now();
    const answer = { job_id: id };
    await this.database.transact(async (trx) => {
      const held = (await new SettingsStore(trx).get(HOLD_NEW_JOBS_SETTING)) === 'true';
      await this.store(trx).insertJob({
        id,
        partner_id: partnerId,
        kind,
        business_id: businessId,
        program_id: programId,
        request: JSON.stringify(request),
        status: 'PROCESSING',
        results: null,
        created_at: now,
        completed_at: null,
        held: held ? 1 : 0,
      });
      if (!held) await this.tasks.enqueue(trx, APPLY_AD_JOB, { job_id: id }, { runAt: now + this.options.processingDelayMs });
      await answerWithinChange(trx, pending, 200, answer);
    });
    return answer;
  }

  private async ownProgram(partnerId: string, programId: string): Promise<AdProgram> {
    return ownedProgram(await this.store().findProgram(programId), partnerId);
  }

  /**
   * The task: judges the job and writes its receipt, the program change and their events in one
   * transaction. The job row is locked first, so two processes given the same job apply it once;
   * a held job waits for the operator.
   */
  async apply(jobId: string, options: { evenHeld?: boolean } = {}): Promise<void> {
    const committed = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const job = await store.lockJob(jobId);
      if (!job || job.status === 'COMPLETED' || (job.held === 1 && !options.evenHeld)) return false;
      const now = this.clock.now();
      const events: DomainEvent[] = [];
      // Everything inside reads through the transaction: on SQLite another handle would wait for it.
      const result =
        job.kind === 'create'
          ? await this.applyCreate(trx, store, job, now, events)
          : job.kind === 'edit'
            ? await this.applyEdit(trx, store, job, now, events)
            : await this.applyEnd(trx, store, job, now, events);
      await store.completeJob(job.id, [result], now);
      events.push({
        type: AD_EVENT_TYPES.jobCompleted,
        businessId: job.business_id!,
        partnerId: job.partner_id,
        at: now,
        payload: {
          event_type: AD_EVENT_TYPES.jobCompleted,
          event_id: newId(),
          job_id: job.id,
          status: 'COMPLETED',
          identifier_type: result.identifier_type,
          identifier: result.identifier,
          result_status: result.status === 'REJECTED' || hasRejection(result) ? 'REJECTED' : 'COMPLETED',
          completed_at: toIsoOffset(now),
        },
      });
      for (const event of events) await recordEvent(trx, this.database.dialect, event);
      return true;
    });
    if (committed) {
      // After the commit: a poll between the two would otherwise remember PROCESSING again.
      this.processingReceipts.delete(jobId);
      this.options.onEventsCommitted?.();
    }
  }

  /** The business, the operator's flags on it and all its programs, read in the job's transaction. */
  private async situation(trx: DbOrTx, store: AdvertisingStore, businessId: string): Promise<Situation> {
    const business = await this.businesses.get(businessId, trx);
    const flags = await store.flagsOf(businessId);
    return {
      business,
      removedFromSearch: flags?.removed_from_search === 1,
      restricted: flags?.restricted_from_advertising === 1,
      programs: await store.programsOfBusiness(businessId),
    };
  }

  private async applyCreate(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const request = JSON.parse(job.request) as CreateRequest;
    const { business, removedFromSearch, restricted, programs } = await this.situation(trx, store, request.business_id);
    const base = { identifier_type: 'BUSINESS' as const, identifier: request.business_id };
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'BUSINESS_NOT_ACTIVE' } };
    if (removedFromSearch) {
      return { ...base, status: 'REJECTED', error: { message: 'The business is removed from search.', code: 'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH' } };
    }

    const cpc = request.program_name === 'CPC';
    const errors: Record<string, Rejection> = {};
    const today = localDate(now, PACIFIC);
    const startDate = request.start ?? today;
    if (request.start !== undefined && request.start < today) errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
    if (request.end !== undefined && (request.end < today || request.end < startDate)) {
      errors.end = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.` };
    }
    if (restricted) errors.program_name = { code: 'BUSINESS_RESTRICTED_FROM_ADVERTISING', message: 'The business is restricted from advertising.' };

    const running = programs.filter((p) => programStatus(p, now) === 'ACTIVE');
    const accountCurrency = running.find((p) => p.parent_program_id === null)?.currency;
    if (request.currency !== undefined && accountCurrency !== undefined && request.currency !== accountCurrency) {
      errors.currency = { code: 'CURRENCY_MISMATCH', message: `The business's programs are paid in ${accountCurrency}; the currency must stay consistent.` };
    }
    const currency = request.currency ?? accountCurrency ?? 'USD';

    const categoryAliases = business.categories.map((c) => c.alias);
    const budget = cents(request.budget);
    if (cpc) {
      if (request.budget === undefined) errors.budget = missingKey('budget');
      else if (budget === undefined) errors.budget = { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
      else if (budget < MIN_BUDGET) errors.budget = { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
      if (request.is_autobid === undefined) errors.is_autobid = missingKey('is_autobid');
      const bid = this.bidProblem(request.max_bid, request.is_autobid === false, budget, request.fee_period, startDate < today ? today : startDate);
      if (bid) errors.max_bid = bid;
      if (categoryAliases.length === 0) errors.program_name ??= { code: 'NO_CATEGORIES', message: 'The business has no categories.' };
      else if (business.specialties.trim() === '') errors.program_name ??= { ...missingKey('specialties'), message: 'CPC needs text in the business specialties field.' };
    }
    const categories = await this.categoryProblem(store, request.ad_categories, categoryAliases, cpc);
    if (categories) errors[request.ad_categories.length > 0 ? 'ad_categories' : 'program_name'] ??= categories;

    const conflict = this.conflictOf(programs, running, request.program_name, job.partner_id, startDate, now);
    if (conflict) errors.program_name ??= conflict;

    const promotion = request.promotion_code !== undefined ? await this.promotionFor(store, request, programs, budget, now) : undefined;
    if (promotion?.rejection) errors[promotion.rejection.key] ??= promotion.rejection;

    let programId: string | null = null;
    if (Object.keys(errors).length === 0) {
      programId = newId();
      const program: AdProgram = {
        id: programId,
        partner_id: job.partner_id,
        business_id: request.business_id,
        program_type: request.program_name,
        state: 'ACTIVE',
        start_at: request.start !== undefined ? startOfDay(request.start) : now,
        end_at: request.end !== undefined ? endOfDay(request.end) : null,
        start_date: startDate,
        end_date: request.end ?? null,
        budget: budget ?? null,
        currency,
        is_autobid: request.is_autobid === undefined ? null : request.is_autobid ? 1 : 0,
        max_bid: cents(request.max_bid) ?? null,
        pacing_method: request.pacing_method ?? (cpc ? (request.is_autobid ? 'paced' : 'unpaced') : null),
        fee_period: request.fee_period,
        ad_categories: JSON.stringify(request.ad_categories),
        pause_status: 'NOT_PAUSED',
        ended_at: null,
        created_at: now,
        updated_at: now,
        parent_program_id: null,
        promotion_code: null,
        future_budget: null,
        future_budget_date: null,
      };
      if (await store.insertProgram(program)) {
        events.push(programEvent(program, 'CREATED', now, job.id));
        if (promotion?.months !== undefined) {
          // facts.md §8.9: the code's own program, same start, to the end of the month ~6 months on.
          const promoEnd = lastDayMonthsAfter(startDate, promotion.months);
          const promo: AdProgram = {
            ...program,
            id: newId(),
            end_date: promoEnd,
            end_at: endOfDay(promoEnd),
            budget: null,
            max_bid: null,
            is_autobid: null,
            pacing_method: null,
            parent_program_id: program.id,
            promotion_code: request.promotion_code!,
          };
          await store.insertProgram(promo);
          events.push(programEvent(promo, 'CREATED', now, job.id));
        }
      } else {
        // Another job won the race for this business and type (the partial unique index decides).
        errors.program_name = this.alreadyActive((await store.activeProgram(request.business_id, request.program_name))!, job.partner_id);
        programId = null;
      }
    }
    return { ...base, status: 'COMPLETED', update_results: { program_added: addedKeys(request, startDate, programId, entries(errors)) } };
  }

  /** INVALID_PRICE, a missing bid, or BID_TOO_HIGH_FOR_BUDGET (a bid above the budget prorated from `from`); undefined when fine. */
  private bidProblem(raw: string | undefined, required: boolean, budget: number | undefined, feePeriod: string, from: string): Rejection | undefined {
    const bid = cents(raw);
    if (raw !== undefined && bid === undefined) return { code: 'INVALID_PRICE', message: 'The max_bid must be a whole number of cents.' };
    if (bid !== undefined && bid < MIN_BID) return { code: 'INVALID_PRICE', message: `The max_bid must be at least ${MIN_BID} cents.` };
    if (raw === undefined && required) return missingKey('max_bid');
    if (bid !== undefined && budget !== undefined && budget >= MIN_BUDGET) {
      const prorated = proratedBudget(budget, feePeriod, from);
      if (bid > prorated) return { code: 'BID_TOO_HIGH_FOR_BUDGET', message: `The bid ${bid} exceeds the budget prorated from ${from} (${prorated}).` };
    }
    return undefined;
  }

  /**
   * The ad categories: each must be one of the business's (INVALID_OR_MISSING_KEY); for CPC the
   * operator's policy may decline them (UNSUPPORTED_CATEGORIES: a declined category asked for, or
   * every category of the business declined when none is named).
   */
  private async categoryProblem(store: AdvertisingStore, asked: string[], ofBusiness: string[], cpc: boolean): Promise<Rejection | undefined> {
    const foreign = asked.filter((c) => !ofBusiness.includes(c));
    if (foreign.length > 0) return { code: 'INVALID_OR_MISSING_KEY', message: `Not categories of the business: ${foreign.join(', ')}` };
    if (!cpc || ofBusiness.length === 0) return undefined;
    const targeted = asked.length > 0 ? asked : ofBusiness;
    const declined = await store.declined(targeted);
    if (declined.length > 0 && (asked.length > 0 || declined.length === targeted.length)) {
      return { code: 'UNSUPPORTED_CATEGORIES', message: `Declined by advertising policy: ${declined.map((d) => `${d.category} (${d.reason})`).join(', ')}` };
    }
    return undefined;
  }

  /**
   * The same type running (PROGRAM_ALREADY_REQUESTED by the caller; …_RUNNING_BY_ANOTHER_PROVIDER
   * by another partner), the exclusive sibling running (BP/EP), or the same type ended on or after
   * the new start date (CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM: "use a later start date").
   */
  private conflictOf(programs: AdProgram[], running: AdProgram[], type: ProgramType, partnerId: string, startDate: string, now: number): Rejection | undefined {
    const parents = running.filter((p) => p.parent_program_id === null);
    const same = parents.find((p) => p.program_type === type);
    if (same) return this.alreadyActive(same, partnerId);
    const sibling = parents.find((p) => p.program_type === EXCLUSIVE[type]);
    if (sibling) return { code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM', message: `The business runs a ${sibling.program_type} program, which excludes ${type}.` };
    const lastDays = programs
      .filter((p) => p.program_type === type && p.parent_program_id === null && p.state !== 'CANCELED' && programStatus(p, now) === 'INACTIVE')
      .map((p) => localDate(p.ended_at ?? p.end_at ?? now, PACIFIC));
    const latest = lastDays.sort().at(-1);
    if (latest !== undefined && latest >= startDate) {
      return { code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM', message: `A ${type} program ran until ${latest}; use a start date after it.` };
    }
    return undefined;
  }

  private alreadyActive(running: AdProgram, partnerId: string): Rejection {
    return running.partner_id === partnerId
      ? { code: 'PROGRAM_ALREADY_REQUESTED', message: `A ${running.program_type} program is already requested for this business (${running.id}).` }
      : { code: 'PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER', message: `The business already has a ${running.program_type} program from another provider.` };
  }

  /**
   * A promotion code (facts.md §8.9): valid when the operator's code is active, covers the program
   * type, the business is a new advertiser (no program of any partner ran in the last six months),
   * and a CPC budget is within the code's range. An invalid code rejects the program.
   */
  private async promotionFor(
    store: AdvertisingStore,
    request: CreateRequest,
    programs: AdProgram[],
    budget: number | undefined,
    now: number,
  ): Promise<{ rejection?: Rejection & { key: string }; months?: number }> {
    const promotion = await store.promotion(request.promotion_code!);
    const invalidCode = (why: string) => ({ rejection: { key: 'promotion_code', code: 'INVALID_OR_MISSING_KEY', message: `Invalid promotion_code: ${why}` } });
    if (!promotion || promotion.active !== 1) return invalidCode('no such active promotion.');
    if (!(JSON.parse(promotion.program_types) as string[]).includes(request.program_name)) return invalidCode(`it does not apply to ${request.program_name}.`);
    const since = now - NEW_ADVERTISER_DAYS * 86_400_000;
    if (programs.some((p) => p.state !== 'CANCELED' && (p.state === 'ACTIVE' || (p.ended_at ?? p.end_at ?? now) >= since))) {
      return invalidCode('promotions are for new advertisers; the business advertised in the last six months.');
    }
    if (request.program_name === 'CPC' && budget !== undefined && outsideRange(budget, promotion)) {
      return { rejection: { key: 'budget', code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS', message: `The promotion needs a budget ${rangeText(promotion)}.` } };
    }
    return { months: promotion.months };
  }

  private async applyEnd(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const program = (await store.lockProgram(job.program_id!))!;
    const base = { identifier_type: 'PROGRAM' as const, identifier: program.id };
    const { business } = await this.situation(trx, store, program.business_id);
    if (programStatus(program, now) === 'INACTIVE') {
      return { ...base, status: 'REJECTED', error: { message: 'The program has already ended.', code: 'PROGRAM_HAS_EXPIRED' } };
    }
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' } };
    await this.endProgram(store, program, now, program.start_at > now ? 'CANCELED' : 'ENDED', events, job.id);
    return { ...base, status: 'COMPLETED', update_results: { program_ended: { status: 'COMPLETED', requested_value: program.id } } };
  }

  /**
   * Ends a program and its promotions (facts.md §8.9: a promo ends when its parent loses
   * eligibility), recording an event for each. CANCELED: ended before it started, so the id is
   * invalidated (facts §8.3). Used by end jobs, the end-of-day schedule and the operator's flags.
   */
  async endProgram(store: AdvertisingStore, program: AdProgram, now: number, change: Extract<ProgramChange, 'ENDED' | 'CANCELED' | 'EXPIRED'>, events: DomainEvent[], jobId?: string) {
    if (!(await store.endProgram(program.id, now, change === 'CANCELED' ? 'CANCELED' : 'ENDED'))) return;
    events.push(programEvent(program, change, now, jobId));
    for (const promo of await store.activePromosOf(program.id)) {
      if (await store.endProgram(promo.id, now, change === 'CANCELED' ? 'CANCELED' : 'ENDED')) events.push(programEvent(promo, change, now, jobId));
    }
  }

  /**
   * An edit, judged against the program as it is now. Business-level: a closed business
   * (PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS), a business removed from search
   * (PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH), an ended or expired program
   * (PROGRAM_HAS_EXPIRED). Per key: see docs/advertising.md. One rejected key rejects the edit
   * (PARENT_WAS_REJECTED for the rest); nothing changes.
   */
  private async applyEdit(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const request = JSON.parse(job.request) as EditRequest;
    const program = (await store.lockProgram(request.program_id))!;
    const base = { identifier_type: 'PROGRAM' as const, identifier: program.id };
    const { business, removedFromSearch } = await this.situation(trx, store, program.business_id);
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' } };
    if (removedFromSearch) {
      return { ...base, status: 'REJECTED', error: { message: 'The business is removed from search.', code: 'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH' } };
    }
    if (programStatus(program, now) === 'INACTIVE') return { ...base, status: 'REJECTED', error: { message: 'The program has ended.', code: 'PROGRAM_HAS_EXPIRED' } };

    const errors: Record<string, Rejection> = {};
    const cannot = (message: string): Rejection => ({ code: 'COULD_NOT_MODIFY_PROGRAM', message });
    const today = localDate(now, PACIFIC);
    const started = program.start_at <= now;
    if (program.parent_program_id !== null) {
      for (const key of EDITABLE) if (request[key] !== undefined) errors[key] = cannot('A promotion program follows its parent program and cannot be modified.');
    }
    const budget = cents(request.budget);
    if (request.budget !== undefined) {
      if (budget === undefined) errors.budget ??= { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
      else if (program.program_type === 'CPC' && budget < MIN_BUDGET) errors.budget ??= { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
      else if (request.future_budget_date === undefined) {
        const spent = (await store.totals([program.id], periodStart(program, today))).get(program.id)?.spend ?? 0;
        if (budget < spent) errors.budget ??= { code: 'CANNOT_DECREASE_BUDGET_BELOW_AMOUNT_ALREADY_SPENT', message: `The budget cannot go below the amount already spent (${spent}).` };
      }
      if (budget !== undefined && !errors.budget) {
        for (const promo of await store.activePromosOf(program.id)) {
          const promotion = promo.promotion_code !== null ? await store.promotion(promo.promotion_code) : undefined;
          if (promotion && outsideRange(budget, promotion)) {
            errors.budget = { code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS', message: `The running promotion ${promotion.code} needs a budget ${rangeText(promotion)}.` };
          }
        }
      }
    }
    if (request.future_budget_date !== undefined) {
      if (request.budget === undefined) errors.future_budget_date ??= missingKey('budget (future_budget_date schedules a budget change)');
      else if (request.future_budget_date <= today) errors.future_budget_date ??= { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The future budget date ${request.future_budget_date} is not after today.` };
    }
    if (request.max_bid !== undefined && !errors.max_bid) {
      if (program.is_autobid !== 0) errors.max_bid = cannot('max_bid applies only to a program bidding with max_bid (is_autobid false).');
      else {
        const from = program.start_date > today ? program.start_date : today;
        const problem = this.bidProblem(request.max_bid, false, request.future_budget_date === undefined ? (budget ?? program.budget ?? undefined) : (program.budget ?? undefined), request.fee_period ?? program.fee_period, from);
        if (problem) errors.max_bid = problem;
      }
    }
    if (request.start !== undefined && !errors.start) {
      if (started) errors.start = cannot('The start date of a program that has started cannot change.');
      else if (request.start < today) errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
    }
    const startDate = request.start ?? program.start_date;
    if (request.end !== undefined && !errors.end && (request.end < today || request.end < startDate)) {
      errors.end = cannot(`The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.`);
    }
    if (request.pacing_method === 'unpaced' && program.is_autobid === 1) errors.pacing_method ??= cannot('pacing_method unpaced is not allowed with autobid.');
    if (request.currency !== undefined && request.currency !== program.currency) {
      errors.currency ??= { code: 'CURRENCY_MISMATCH', message: `The program is paid in ${program.currency}; the currency must stay consistent.` };
    }
    if (request.fee_period !== undefined && request.fee_period !== program.fee_period && started) {
      errors.fee_period ??= cannot('The fee period cannot change after the program has started.');
    }
    if (request.ad_categories !== undefined && !errors.ad_categories) {
      const problem = await this.categoryProblem(store, request.ad_categories, business.categories.map((c) => c.alias), program.program_type === 'CPC');
      if (problem) errors.ad_categories = problem;
    }

    if (Object.keys(errors).length === 0) {
      const scheduled = request.future_budget_date !== undefined;
      await store.updateProgram(program.id, {
        ...(request.start !== undefined ? { start_date: request.start, start_at: startOfDay(request.start) } : {}),
        ...(request.end !== undefined ? { end_date: request.end, end_at: endOfDay(request.end) } : {}),
        ...(budget !== undefined ? (scheduled ? { future_budget: budget, future_budget_date: request.future_budget_date } : { budget, future_budget: null, future_budget_date: null }) : {}),
        ...(request.max_bid !== undefined ? { max_bid: cents(request.max_bid) } : {}),
        ...(request.pacing_method !== undefined ? { pacing_method: request.pacing_method } : {}),
        ...(request.ad_categories !== undefined ? { ad_categories: JSON.stringify(request.ad_categories) } : {}),
        ...(request.fee_period !== undefined ? { fee_period: request.fee_period } : {}),
        updated_at: now,
      });
      events.push(programEvent(program, 'MODIFIED', now, job.id));
    }
    return { ...base, status: 'COMPLETED', update_results: { program_modified: modifiedKeys(request, entries(errors)) } };
  }

  /** The receipt entry of a job still PROCESSING: what was asked, every key PROCESSING. */
  private processingResult(job: AdJob) {
    const processing = (_key: string, value: unknown): Entry => ({ status: 'PROCESSING', requested_value: value });
    if (job.kind === 'end') {
      return { status: 'PROCESSING', identifier_type: 'PROGRAM', identifier: job.program_id, update_results: { program_ended: processing('program_ended', job.program_id) } };
    }
    if (job.kind === 'edit') {
      const edit = JSON.parse(job.request) as EditRequest;
      return { status: 'PROCESSING', identifier_type: 'PROGRAM', identifier: job.program_id, update_results: { program_modified: modifiedKeys(edit, processing) } };
    }
    const request = JSON.parse(job.request) as CreateRequest;
    const added = addedKeys(request, request.start ?? localDate(job.created_at, PACIFIC), null, processing);
    return { status: 'PROCESSING', identifier_type: 'BUSINESS', identifier: request.business_id, update_results: { program_added: added } };
  }

  // ---- the pbs clock's schedule ------------------------------------------------------------------

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
        for (const program of due) await this.endProgram(store, program, now, 'EXPIRED', events);
        const budgets = await store.dueBudgetChanges(today, 200);
        for (const program of budgets) {
          await store.updateProgram(program.id, { budget: program.future_budget, future_budget: null, future_budget_date: null, updated_at: now });
          events.push(programEvent({ ...program, budget: program.future_budget }, 'BUDGET_CHANGED', now));
        }
        for (const event of events) await recordEvent(trx, this.database.dialect, event);
        return due.length + budgets.length;
      });
      if (changed === 0) break;
      this.options.onEventsCommitted?.();
    }
  }
}

function hasRejection(result: BusinessResult): boolean {
  const updates = result.update_results as Record<string, Record<string, Entry> | Entry> | undefined;
  if (!updates) return false;
  return Object.values(updates).some((value) =>
    'status' in value && typeof value.status === 'string' ? value.status === 'REJECTED' : Object.values(value as Record<string, Entry>).some((e) => e.status === 'REJECTED'),
  );
}

function outsideRange(budget: number, promotion: { min_budget: number | null; max_budget: number | null }): boolean {
  return (promotion.min_budget !== null && budget < promotion.min_budget) || (promotion.max_budget !== null && budget > promotion.max_budget);
}

function rangeText(promotion: { min_budget: number | null; max_budget: number | null }): string {
  if (promotion.min_budget !== null && promotion.max_budget !== null) return `between ${promotion.min_budget} and ${promotion.max_budget} cents`;
  return promotion.min_budget !== null ? `of at least ${promotion.min_budget} cents` : `of at most ${promotion.max_budget} cents`;
}
