import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Principal } from '../platform/auth/principal.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { answerWithinChange, type PendingIdempotency } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { addDays, localDate, localDay, parseDate } from '../platform/local-time.js';
import { list, single } from '../platform/query.js';
import { defineTask, type TaskRunner } from '../platform/tasks/task-runner.js';
import { AdvertisingStore, type AdJob, type AdProgram } from './advertising-store.js';
import { PROGRAM_TYPES, type ProgramType } from './advertising-tables.js';

/** Programs start at 00:00 and end at 23:59 Pacific time of their dates (spec, Advertising). */
const PACIFIC = 'America/Los_Angeles';
/** CPC limits (spec, Limits): budget in cents per month, bid in cents. */
const MIN_BUDGET = 2500;
const MIN_BID = 50;

/** Applies one advertising job (create, edit, end) after the configured processing delay. */
export const APPLY_AD_JOB = defineTask<{ job_id: string }>(
  'advertising.apply',
  { type: 'object', required: ['job_id'], additionalProperties: false, properties: { job_id: { type: 'string', minLength: 1 } } },
  { maxAttempts: 20 },
);

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
  currency: string;
  pacing_method?: 'paced' | 'unpaced';
  fee_period: 'CALENDAR_MONTH' | 'ROLLING_MONTH';
  ad_categories: string[];
  promotion_code?: string;
}

/** An edit as the job judges it (spec: start, end, budget, future_budget_date, max_bid, pacing_method, ad_categories). */
export interface EditRequest {
  program_id: string;
  start?: string;
  end?: string;
  budget?: string;
  max_bid?: string;
  future_budget_date?: string;
  pacing_method?: 'paced' | 'unpaced';
  ad_categories?: string[];
}

type Entry = { status: 'COMPLETED' | 'PROCESSING' | 'REJECTED'; requested_value: unknown; error?: { message: string; code: string } };
type Rejection = { code: string; message: string };

/** 400 Invalid Request (spec, Advertising general status codes), naming the parameter. */
function invalid(field: string, message: string): never {
  throw apiError('INVALID_REQUEST', message, { field });
}

const integer = (raw: string | undefined) => (raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined);

/** Reads a request's parameters: `text` (absent or empty: undefined) and `date` (YYYY-MM-DD, else 400). */
function reader(params: Record<string, unknown>) {
  const text = (name: string) => {
    const value = single(params[name]);
    return value === undefined || value === '' ? undefined : value;
  };
  const date = (field: string) => {
    const value = text(field);
    if (value !== undefined && !parseDate(value)) invalid(field, `${field} must be a date YYYY-MM-DD`);
    return value;
  };
  return { text, date };
}

/** The keys of program_added (spec; facts §8.4), each made into an entry by `entry`. */
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
    added.max_bid = entry('max_bid', integer(request.max_bid) ?? request.max_bid ?? null);
    added.budget = entry('budget', integer(request.budget) ?? request.budget ?? null);
  }
  return added;
}

const EDITABLE = ['start', 'end', 'budget', 'max_bid', 'future_budget_date', 'pacing_method', 'ad_categories'] as const;

/** The keys of program_modified: program_id and each key the edit changes (prices as numbers when they are). */
function modifiedKeys(request: EditRequest, entry: (key: string, value: unknown) => Entry) {
  const modified: Record<string, Entry> = { program_id: entry('program_id', request.program_id) };
  for (const key of EDITABLE) {
    const value = request[key];
    if (value !== undefined) modified[key] = entry(key, key === 'budget' || key === 'max_bid' ? (integer(value as string) ?? value) : value);
  }
  return modified;
}

/**
 * The advertising reseller interface (spec part 2; facts.md §8): create, end and poll jobs, each
 * applied in the background. Which problems are the request's and which the job's:
 * - 400 at the request (nothing to judge without them, or not the interface's words): missing
 *   business_id or program_name, a program_name not in facts §8.1, start/end not `YYYY-MM-DD`,
 *   is_autobid not a boolean, currency not ISO 4217 letters, pacing_method or fee_period not one
 *   of theirs, `unpaced` with autobid (the spec: "not allowed").
 * - in the receipt (the spec's job error table): a missing CPC key (INVALID_OR_MISSING_KEY), a
 *   budget or bid that is not a whole number of cents or below its minimum (INVALID_PRICE), a
 *   start or end before today (CANNOT_ADD_PROGRAM_IN_PAST), the program type already active for
 *   the business (PROGRAM_ALREADY_REQUESTED; PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER when
 *   another partner bought it), a CPC program for a business without categories (NO_CATEGORIES),
 *   a closed business (BUSINESS_NOT_ACTIVE, the whole business rejected); every other key of a
 *   rejected creation is PARENT_WAS_REJECTED.
 */
export class AdvertisingService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly businesses: BusinessDirectory,
    private readonly options: { processingDelayMs: number },
  ) {}

  private store(db: DbOrTx = this.db) {
    return new AdvertisingStore(db);
  }

  // ---- requests ------------------------------------------------------------------------------

  parseCreate(params: Record<string, unknown>): CreateRequest {
    const { text, date } = reader(params);
    const businessId = text('business_id') ?? invalid('business_id', 'business_id is required');
    const name = text('program_name') ?? invalid('program_name', 'program_name is required');
    if (!(PROGRAM_TYPES as readonly string[]).includes(name)) invalid('program_name', `program_name must be one of ${PROGRAM_TYPES.join(', ')}`);
    const autobid = text('is_autobid');
    if (autobid !== undefined && !/^(true|false)$/i.test(autobid)) invalid('is_autobid', 'is_autobid must be true or false');
    const isAutobid = autobid === undefined ? undefined : autobid.toLowerCase() === 'true';
    const currency = text('currency') ?? 'USD';
    if (!/^[A-Z]{3}$/.test(currency)) invalid('currency', 'currency must be an ISO 4217 code such as USD');
    const pacing = text('pacing_method');
    if (pacing !== undefined && pacing !== 'paced' && pacing !== 'unpaced') invalid('pacing_method', 'pacing_method must be paced or unpaced');
    if (pacing === 'unpaced' && isAutobid === true) invalid('pacing_method', 'pacing_method unpaced is not allowed with is_autobid true');
    const feePeriod = text('fee_period') ?? 'CALENDAR_MONTH';
    if (feePeriod !== 'CALENDAR_MONTH' && feePeriod !== 'ROLLING_MONTH') invalid('fee_period', 'fee_period must be CALENDAR_MONTH or ROLLING_MONTH');
    return {
      business_id: businessId,
      program_name: name as ProgramType,
      start: date('start'),
      end: date('end'),
      budget: text('budget'),
      max_bid: text('max_bid'),
      is_autobid: isAutobid,
      currency,
      pacing_method: pacing,
      fee_period: feePeriod,
      ad_categories: list(params.ad_categories),
      promotion_code: text('promotion_code'),
    };
  }

  /** Request-level checks of an edit (400): dates in form, a known pacing method, something to change. */
  parseEdit(programId: string, params: Record<string, unknown>): EditRequest {
    const { text, date } = reader(params);
    const pacing = text('pacing_method');
    if (pacing !== undefined && pacing !== 'paced' && pacing !== 'unpaced') invalid('pacing_method', 'pacing_method must be paced or unpaced');
    const request: EditRequest = {
      program_id: programId,
      start: date('start'),
      end: date('end'),
      budget: text('budget'),
      max_bid: text('max_bid'),
      future_budget_date: date('future_budget_date'),
      pacing_method: pacing,
      ad_categories: params.ad_categories === undefined ? undefined : list(params.ad_categories),
    };
    if (Object.entries(request).every(([key, value]) => key === 'program_id' || value === undefined)) {
      invalid('program_id', 'Nothing to modify: give start, end, budget, future_budget_date, max_bid, pacing_method or ad_categories');
    }
    return request;
  }

  /** `POST /v1/reseller/program/{program_id}/edit`. Another partner's program answers like an unknown one. */
  async edit(principal: Principal, programId: string, params: Record<string, unknown>, pending?: PendingIdempotency) {
    const program = await this.ownProgram(principal.partnerId, programId);
    const request = this.parseEdit(program.id, params);
    return this.newJob(principal.partnerId, 'edit', request, program.business_id, program.id, pending);
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
    if (program.state === 'ENDED' || (program.end_at !== null && program.end_at <= now)) throw apiError('CONFLICT', 'The program has ended.');
    if ((program.pause_status === 'PAUSED') === paused) throw apiError('CONFLICT', `The program is already ${paused ? 'paused' : 'running'}.`);
    await this.db.transaction().execute(async (trx) => {
      await this.store(trx).updateProgram(program.id, { pause_status: paused ? 'PAUSED' : 'NOT_PAUSED', updated_at: now });
      await answerWithinChange(trx, pending, 202, undefined);
    });
  }

  /** `POST /v1/reseller/program/create`: the job, written with its task (and Idempotency-Key answer). */
  async create(principal: Principal, params: Record<string, unknown>, pending?: PendingIdempotency) {
    const request = this.parseCreate(params);
    const business = await this.businesses.requireRef(request.business_id);
    return this.newJob(principal.partnerId, 'create', { ...request, business_id: business.id }, business.id, null, pending);
  }

  /** `POST /v1/reseller/program/{program_id}/end`. Another partner's program answers like an unknown one. */
  async end(principal: Principal, programId: string, pending?: PendingIdempotency) {
    const program = await this.ownProgram(principal.partnerId, programId);
    return this.newJob(principal.partnerId, 'end', { program_id: program.id }, program.business_id, program.id, pending);
  }

  /**
   * `GET /v1/reseller/status/{job_id}`: the receipt, with 202 while the job is PROCESSING (facts
   * §8.4: "Job not complete") and 200 once COMPLETED. Another partner's job is 404.
   */
  async status(principal: Principal, jobId: string): Promise<{ statusCode: 200 | 202; receipt: object }> {
    const job = await this.store().findJob(jobId);
    if (!job || job.partner_id !== principal.partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
    const results = job.results !== null ? (JSON.parse(job.results) as object[]) : [this.processingResult(job)];
    return {
      statusCode: job.status === 'COMPLETED' ? 200 : 202,
      receipt: {
        status: job.status,
        created_at: toIsoOffset(job.created_at),
        completed_at: job.completed_at === null ? null : toIsoOffset(job.completed_at),
        business_results: results,
      },
    };
  }

  private async newJob(partnerId: string, kind: AdJob['kind'], request: object, businessId: string, programId: string | null, pending?: PendingIdempotency) {
    const id = newId();
    const now = this.clock.now();
    const answer = { job_id: id };
    await this.db.transaction().execute(async (trx) => {
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
      });
      await this.tasks.enqueue(trx, APPLY_AD_JOB, { job_id: id }, { runAt: now + this.options.processingDelayMs });
      await answerWithinChange(trx, pending, 200, answer);
    });
    return answer;
  }

  private async ownProgram(partnerId: string, programId: string): Promise<AdProgram> {
    const program = await this.store().findProgram(programId);
    if (!program || program.partner_id !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such program');
    return program;
  }

  // ---- the job -------------------------------------------------------------------------------

  /** The task: judges the job and writes its receipt with the program change, in one transaction. */
  async apply(jobId: string): Promise<void> {
    const job = await this.store().findJob(jobId);
    if (!job || job.status === 'COMPLETED') return;
    await this.db.transaction().execute(async (trx) => {
      const store = this.store(trx);
      const now = this.clock.now();
      // Everything inside reads through the transaction: on SQLite another handle would wait for it.
      const result =
        job.kind === 'create'
          ? await this.applyCreate(trx, store, job, now)
          : job.kind === 'edit'
            ? await this.applyEdit(trx, store, job, now)
            : await this.applyEnd(trx, store, job, now);
      await store.completeJob(job.id, [result], now);
    });
  }

  private async applyCreate(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number) {
    const request = JSON.parse(job.request) as CreateRequest;
    const business = await this.businesses.get(request.business_id, trx);
    const base = { identifier_type: 'BUSINESS', identifier: request.business_id };
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'BUSINESS_NOT_ACTIVE' } };

    const cpc = request.program_name === 'CPC';
    const errors: Record<string, Rejection> = {};
    const today = localDate(now, PACIFIC);
    const startDate = request.start ?? today;
    if (request.start !== undefined && request.start < today) errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
    if (request.end !== undefined && (request.end < today || request.end < startDate)) {
      errors.end = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.` };
    }
    if (cpc) {
      const missing = (key: string) => ({ code: 'INVALID_OR_MISSING_KEY', message: `Required keys are invalid or missing: ${key}` });
      const budget = integer(request.budget);
      if (request.budget === undefined) errors.budget = missing('budget');
      else if (budget === undefined) errors.budget = { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
      else if (budget < MIN_BUDGET) errors.budget = { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
      if (request.is_autobid === undefined) errors.is_autobid = missing('is_autobid');
      const bid = integer(request.max_bid);
      if (request.max_bid !== undefined && bid === undefined) errors.max_bid = { code: 'INVALID_PRICE', message: 'The max_bid must be a whole number of cents.' };
      else if (bid !== undefined && bid < MIN_BID) errors.max_bid = { code: 'INVALID_PRICE', message: `The max_bid must be at least ${MIN_BID} cents.` };
      else if (request.max_bid === undefined && request.is_autobid === false) errors.max_bid = missing('max_bid');
      if (business.categories.length === 0) errors.program_name = { code: 'NO_CATEGORIES', message: 'The business has no categories.' };
    }
    const running = await store.activeProgram(request.business_id, request.program_name);
    if (running && !errors.program_name) errors.program_name = this.alreadyActive(running, job.partner_id);

    let programId: string | null = null;
    if (Object.keys(errors).length === 0) {
      programId = newId();
      const inserted = await store.insertProgram({
        id: programId,
        partner_id: job.partner_id,
        business_id: request.business_id,
        program_type: request.program_name,
        state: 'ACTIVE',
        start_at: request.start !== undefined ? localDay(request.start, PACIFIC)(0) : now,
        end_at: request.end !== undefined ? localDay(addDays(request.end, 1), PACIFIC)(0) - 1 : null,
        start_date: startDate,
        end_date: request.end ?? null,
        budget: integer(request.budget) ?? null,
        currency: request.currency,
        is_autobid: request.is_autobid === undefined ? null : request.is_autobid ? 1 : 0,
        max_bid: integer(request.max_bid) ?? null,
        pacing_method: request.pacing_method ?? (cpc ? (request.is_autobid ? 'paced' : 'unpaced') : null),
        fee_period: request.fee_period,
        ad_categories: JSON.stringify(request.ad_categories),
        pause_status: 'NOT_PAUSED',
        ended_at: null,
        created_at: now,
        updated_at: now,
      });
      if (!inserted) {
        // Another job won the race for this business and type (the partial unique index decides).
        errors.program_name = this.alreadyActive((await store.activeProgram(request.business_id, request.program_name))!, job.partner_id);
        programId = null;
      }
    }
    const rejected = Object.keys(errors).length > 0;
    const entry = (key: string, value: unknown): Entry => {
      if (!rejected) return { status: 'COMPLETED', requested_value: value };
      return { status: 'REJECTED', requested_value: value, error: errors[key] ?? { code: 'PARENT_WAS_REJECTED', message: 'Another part of the request failed.' } };
    };
    return { ...base, status: 'COMPLETED', update_results: { program_added: addedKeys(request, startDate, programId, entry) } };
  }

  private alreadyActive(running: AdProgram, partnerId: string): Rejection {
    return running.partner_id === partnerId
      ? { code: 'PROGRAM_ALREADY_REQUESTED', message: `A ${running.program_type} program is already requested for this business (${running.id}).` }
      : { code: 'PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER', message: `The business already has a ${running.program_type} program from another provider.` };
  }

  private async applyEnd(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number) {
    const program = (await store.findProgram(job.program_id!))!;
    const base = { identifier_type: 'PROGRAM', identifier: program.id };
    const business = await this.businesses.get(program.business_id, trx);
    if (program.state === 'ENDED' || (program.end_at !== null && program.end_at <= now)) {
      return { ...base, status: 'REJECTED', error: { message: 'The program has already ended.', code: 'PROGRAM_HAS_EXPIRED' } };
    }
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' } };
    await store.endProgram(program.id, now);
    return { ...base, status: 'COMPLETED', update_results: { program_ended: { status: 'COMPLETED', requested_value: program.id } } };
  }

  /**
   * An edit, judged against the program as it is now. Business-level: a closed business
   * (PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS), an ended or expired program (PROGRAM_HAS_EXPIRED). Per
   * key: prices as at creation (INVALID_PRICE), a max_bid on an autobid program, a start change of
   * a started program, an end in the past or before the start, unpaced with autobid
   * (COULD_NOT_MODIFY_PROGRAM), a start before today (CANNOT_ADD_PROGRAM_IN_PAST). One rejected key
   * rejects the edit (PARENT_WAS_REJECTED for the rest); nothing changes.
   */
  private async applyEdit(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number) {
    const request = JSON.parse(job.request) as EditRequest;
    const program = (await store.findProgram(request.program_id))!;
    const base = { identifier_type: 'PROGRAM', identifier: program.id };
    const business = await this.businesses.get(program.business_id, trx);
    if (business.is_closed) return { ...base, status: 'REJECTED', error: { message: 'The business is closed.', code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' } };
    if (program.state === 'ENDED' || (program.end_at !== null && program.end_at <= now)) {
      return { ...base, status: 'REJECTED', error: { message: 'The program has ended.', code: 'PROGRAM_HAS_EXPIRED' } };
    }
    const errors: Record<string, Rejection> = {};
    const cannot = (message: string): Rejection => ({ code: 'COULD_NOT_MODIFY_PROGRAM', message });
    const today = localDate(now, PACIFIC);
    const budget = integer(request.budget);
    if (request.budget !== undefined) {
      if (budget === undefined) errors.budget = { code: 'INVALID_PRICE', message: 'The budget must be a whole number of cents.' };
      else if (program.program_type === 'CPC' && budget < MIN_BUDGET) errors.budget = { code: 'INVALID_PRICE', message: `The budget must be at least ${MIN_BUDGET} cents.` };
    }
    const bid = integer(request.max_bid);
    if (request.max_bid !== undefined) {
      if (program.is_autobid !== 0) errors.max_bid = cannot('max_bid applies only to a program bidding with max_bid (is_autobid false).');
      else if (bid === undefined) errors.max_bid = { code: 'INVALID_PRICE', message: 'The max_bid must be a whole number of cents.' };
      else if (bid < MIN_BID) errors.max_bid = { code: 'INVALID_PRICE', message: `The max_bid must be at least ${MIN_BID} cents.` };
    }
    if (request.start !== undefined) {
      if (program.start_at <= now) errors.start = cannot('The start date of a program that has started cannot change.');
      else if (request.start < today) errors.start = { code: 'CANNOT_ADD_PROGRAM_IN_PAST', message: `The start date ${request.start} is in the past.` };
    }
    const startDate = request.start ?? program.start_date;
    if (request.end !== undefined && (request.end < today || request.end < startDate)) {
      errors.end = cannot(`The end date ${request.end} is before ${request.end < today ? 'today' : 'the start date'}.`);
    }
    if (request.pacing_method === 'unpaced' && program.is_autobid === 1) errors.pacing_method = cannot('pacing_method unpaced is not allowed with autobid.');

    const rejected = Object.keys(errors).length > 0;
    if (!rejected) {
      await store.updateProgram(program.id, {
        ...(request.start !== undefined ? { start_date: request.start, start_at: localDay(request.start, PACIFIC)(0) } : {}),
        ...(request.end !== undefined ? { end_date: request.end, end_at: localDay(addDays(request.end, 1), PACIFIC)(0) - 1 } : {}),
        ...(budget !== undefined ? { budget } : {}),
        ...(bid !== undefined ? { max_bid: bid } : {}),
        ...(request.pacing_method !== undefined ? { pacing_method: request.pacing_method } : {}),
        ...(request.ad_categories !== undefined ? { ad_categories: JSON.stringify(request.ad_categories) } : {}),
        updated_at: now,
      });
    }
    const entry = (key: string, value: unknown): Entry =>
      !rejected
        ? { status: 'COMPLETED', requested_value: value }
        : { status: 'REJECTED', requested_value: value, error: errors[key] ?? { code: 'PARENT_WAS_REJECTED', message: 'Another part of the request failed.' } };
    return { ...base, status: 'COMPLETED', update_results: { program_modified: modifiedKeys(request, entry) } };
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

  /** The end-of-day schedule: programs past their end date (23:59 Pacific) are ended. */
  async endExpired(): Promise<void> {
    await this.store().endExpired(this.clock.now());
  }
}
