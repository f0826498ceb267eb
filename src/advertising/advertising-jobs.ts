import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Principal } from '../platform/auth/principal.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { SettingsStore } from '../platform/settings.js';
import { defineTask, type TaskRunner } from '../platform/tasks/task-runner.js';
import { invalid, parseCreate, parseEdit, type CreateRequest, type EditRequest, type EndRequest } from './advertising-input.js';
import { alreadyActive, categoriesToCheck, judgeCreate, type BusinessFacts } from './advertising-judge.js';
import { judgeEdit, judgeEnd, spendPeriodStart } from './advertising-edit-judge.js';
import {
  addedKeys,
  createRequestOf,
  editRequestOf,
  entries,
  hasRejection,
  modifiedKeys,
  type BusinessResult,
  type JobStatus,
} from './advertising-receipts.js';
import {
  AD_EVENT_TYPES,
  cents,
  endOfDay,
  lastDayMonthsAfter,
  ownedProgram,
  programEvent,
  programStatus,
  startOfDay,
} from './advertising-rules.js';
import { endProgram } from './advertising-schedule.js';
import { AdvertisingStore, type AdJob, type AdProgram } from './advertising-store.js';
import { toJson } from '../platform/values.js';

/** Applies one advertising job (create, edit, end) after the configured processing delay. */
export const APPLY_AD_JOB = defineTask<{ job_id: string }>(
  'advertising.apply',
  { type: 'object', required: ['job_id'], additionalProperties: false, properties: { job_id: { type: 'string', minLength: 1 } } },
  { maxAttempts: 20 },
);

/** The sandbox setting that holds every new job until the operator releases or completes it. */
export const HOLD_NEW_JOBS_SETTING = 'advertising.hold_new_jobs';

/**
 * The advertising reseller interface's changes (spec part 2; docs/contract/advertising.md §8): requests are checked
 * for form (advertising-input.ts, 400) and answered with a job id; the job reads the facts in
 * its transaction, asks advertising-judge.ts, and writes the receipt with the program change and
 * their events. Also pause/resume (at once), the operator's end of a program, and the pbs
 * clock's schedule (expiry, scheduled budgets).
 */
export class AdvertisingJobs {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly businesses: BusinessDirectory,
    private readonly status: JobStatus,
    private readonly options: { processingDelayMs: number; onEventsCommitted?: () => void },
  ) {}

  store(db: DbOrTx = this.database.db) {
    return new AdvertisingStore(db, this.database.dialect);
  }

  // ---- requests ------------------------------------------------------------------------------

  /** `POST /v1/reseller/program/create`: the job, written with its task (and Idempotency-Key answer). */
  create(principal: Principal, params: Record<string, unknown>, write?: PartnerWrite) {
    return this.createFor(principal.partnerId, params, write);
  }

  /** A create job for a partner, as its request makes one (the operator's `startProgram` too). */
  async createFor(partnerId: string, params: Record<string, unknown>, write?: PartnerWrite) {
    const request = parseCreate(params);
    const business = await this.businesses.requireRef(request.business_id);
    return this.newJob(partnerId, 'create', { ...request, business_id: business.id }, business.id, null, write);
  }

  /** `POST /v1/reseller/program/{program_id}/edit`. Another partner's program answers like an unknown one. */
  async edit(principal: Principal, programId: string, params: Record<string, unknown>, write?: PartnerWrite) {
    const program = await this.ownProgram(principal.partnerId, programId);
    const request = parseEdit(program.id, params);
    return this.newJob(principal.partnerId, 'edit', request, program.business_id, program.id, write);
  }

  /** `POST /v1/reseller/program/{program_id}/end`. Another partner's program answers like an unknown one. */
  async end(principal: Principal, programId: string, write?: PartnerWrite) {
    const program = await this.ownProgram(principal.partnerId, programId);
    return this.newJob(principal.partnerId, 'end', { program_id: program.id }, program.business_id, program.id, write);
  }

  /**
   * `POST /program/{program_id}/pause/v1` and `…/resume/v1` (spec: "coming soon"): a running CPC
   * program is paused or resumed at once (202, empty body). Not CPC → 400; ended, or already in
   * that state → 409 CONFLICT; another partner's program → 404.
   */
  async setPaused(principal: Principal, programId: string, paused: boolean, write?: PartnerWrite): Promise<void> {
    const program = await this.ownProgram(principal.partnerId, programId);
    if (program.program_type !== 'CPC') invalid('program_id', 'Only CPC programs can be paused and resumed.');
    const now = this.clock.now();
    if (programStatus(program, now) === 'INACTIVE') throw apiError('CONFLICT', 'The program has ended.');
    if ((program.pause_status === 'PAUSED') === paused)
      throw apiError('CONFLICT', `The program is already ${paused ? 'paused' : 'running'}.`);
    await this.database.transact(async (trx) => {
      // Conditional, so of two concurrent pauses one changes the program and the other is told so.
      if (!(await this.store(trx).setPauseStatus(program.id, paused ? 'PAUSED' : 'NOT_PAUSED', now))) {
        throw apiError('CONFLICT', `The program is already ${paused ? 'paused' : 'running'}.`);
      }
      await recordEvent(trx, this.database.dialect, {
        ...programEvent(program, paused ? 'PAUSED' : 'RESUMED', now),
        requestId: write?.requestId,
      });
      await answerWithinChange(trx, write, 202, undefined);
    });
    this.options.onEventsCommitted?.();
  }

  private async newJob(
    partnerId: string,
    kind: AdJob['kind'],
    request: CreateRequest | EditRequest | EndRequest,
    businessId: string,
    programId: string | null,
    write?: PartnerWrite,
  ) {
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
        request: toJson(request),
        status: 'PROCESSING',
        results: null,
        created_at: now,
        completed_at: null,
        held: held ? 1 : 0,
        request_id: write?.requestId ?? null,
      });
      if (!held) await this.tasks.enqueue(trx, APPLY_AD_JOB, { job_id: id }, { runAt: now + this.options.processingDelayMs });
      await answerWithinChange(trx, write, 200, answer);
    });
    return answer;
  }

  private async ownProgram(partnerId: string, programId: string): Promise<AdProgram> {
    return ownedProgram(await this.store().findProgram(programId), partnerId);
  }

  // ---- applying a job --------------------------------------------------------------------------

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
          result_status: hasRejection(result) ? 'REJECTED' : 'COMPLETED',
          completed_at: toIsoOffset(now),
        },
      });
      // Applied later by a task: the events name the request that created the job.
      for (const event of events) await recordEvent(trx, this.database.dialect, { ...event, requestId: job.request_id });
      return true;
    });
    if (committed) {
      // After the commit: a poll between the two would otherwise remember PROCESSING again.
      this.status.forget(jobId);
      this.options.onEventsCommitted?.();
    }
  }

  /** The business and the operator's flags on it, read in the job's transaction. */
  private async businessFacts(trx: DbOrTx, store: AdvertisingStore, businessId: string): Promise<BusinessFacts> {
    const business = await this.businesses.get(businessId, trx);
    const flags = await store.flagsOf(businessId);
    return {
      closed: business.is_closed,
      removedFromSearch: flags?.removed_from_search === 1,
      restricted: flags?.restricted_from_advertising === 1,
      categories: business.categories.map((c) => c.alias),
      specialties: business.specialties,
    };
  }

  private async declinedAmong(store: AdvertisingStore, categories: string[]) {
    return categories.length > 0 ? await store.declined(categories) : [];
  }

  private async applyCreate(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const request = createRequestOf(job);
    const base = { identifier_type: 'BUSINESS' as const, identifier: request.business_id };
    const business = await this.businessFacts(trx, store, request.business_id);
    const verdict = judgeCreate({
      request,
      partnerId: job.partner_id,
      now,
      business,
      programs: await store.programsOfBusiness(request.business_id),
      declined: await this.declinedAmong(
        store,
        categoriesToCheck(request.ad_categories, business.categories, request.program_name === 'CPC'),
      ),
      promotion: request.promotion_code !== undefined ? await store.promotion(request.promotion_code) : undefined,
    });
    if (verdict.refusal) return { ...base, status: 'REJECTED', error: verdict.refusal };

    const { errors, startDate } = verdict;
    let programId: string | null = null;
    if (Object.keys(errors).length === 0) {
      const program = this.newProgram(job, request, verdict, now);
      if (await store.insertProgram(program)) {
        programId = program.id;
        events.push(programEvent(program, 'CREATED', now, job.id));
        if (verdict.promotionMonths !== undefined) {
          // docs/contract/advertising.md §8.9: the code's own program, same start, to the end of the month ~6 months on.
          const promoEnd = lastDayMonthsAfter(startDate, verdict.promotionMonths);
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
        errors.program_name = alreadyActive((await store.activeProgram(request.business_id, request.program_name))!, job.partner_id);
      }
    }
    return { ...base, status: 'COMPLETED', update_results: { program_added: addedKeys(request, startDate, programId, entries(errors)) } };
  }

  /** The program a create makes, from the request and what the judge settled (start date, currency, budget). */
  private newProgram(
    job: AdJob,
    request: CreateRequest,
    settled: { startDate: string; currency: string; budget: number | undefined },
    now: number,
  ): AdProgram {
    const cpc = request.program_name === 'CPC';
    return {
      id: newId(),
      partner_id: job.partner_id,
      business_id: request.business_id,
      program_type: request.program_name,
      state: 'ACTIVE',
      start_at: request.start !== undefined ? startOfDay(request.start) : now,
      end_at: request.end !== undefined ? endOfDay(request.end) : null,
      start_date: settled.startDate,
      end_date: request.end ?? null,
      budget: settled.budget ?? null,
      currency: settled.currency,
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
  }

  private async applyEnd(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const program = (await store.lockProgram(job.program_id!))!;
    const base = { identifier_type: 'PROGRAM' as const, identifier: program.id };
    const refusal = judgeEnd({ program, now, business: await this.businessFacts(trx, store, program.business_id) });
    if (refusal) return { ...base, status: 'REJECTED', error: refusal };
    await endProgram(store, program, now, program.start_at > now ? 'CANCELED' : 'ENDED', events, job.id);
    return { ...base, status: 'COMPLETED', update_results: { program_ended: { status: 'COMPLETED', requested_value: program.id } } };
  }

  /** An edit, judged against the program as it is now; one rejected key rejects the edit and nothing changes. */
  private async applyEdit(trx: DbOrTx, store: AdvertisingStore, job: AdJob, now: number, events: DomainEvent[]): Promise<BusinessResult> {
    const request = editRequestOf(job);
    const program = (await store.lockProgram(request.program_id))!;
    const base = { identifier_type: 'PROGRAM' as const, identifier: program.id };
    const business = await this.businessFacts(trx, store, program.business_id);
    const budgetAsked = request.budget !== undefined;
    const promos = budgetAsked ? await store.activePromosOf(program.id) : [];
    const promotions = [];
    for (const promo of promos) {
      const promotion = promo.promotion_code !== null ? await store.promotion(promo.promotion_code) : undefined;
      if (promotion) promotions.push(promotion);
    }
    const verdict = judgeEdit({
      request,
      program,
      now,
      business,
      spentThisPeriod: budgetAsked ? ((await store.totals([program.id], spendPeriodStart(program, now))).get(program.id)?.spend ?? 0) : 0,
      promotions,
      declined:
        request.ad_categories === undefined
          ? []
          : await this.declinedAmong(store, categoriesToCheck(request.ad_categories, business.categories, program.program_type === 'CPC')),
    });
    if (verdict.refusal) return { ...base, status: 'REJECTED', error: verdict.refusal };

    const { errors, budget } = verdict;
    if (Object.keys(errors).length === 0) {
      const scheduled = request.future_budget_date !== undefined;
      await store.updateProgram(program.id, {
        ...(request.start !== undefined ? { start_date: request.start, start_at: startOfDay(request.start) } : {}),
        ...(request.end !== undefined ? { end_date: request.end, end_at: endOfDay(request.end) } : {}),
        ...(budget !== undefined
          ? scheduled
            ? { future_budget: budget, future_budget_date: request.future_budget_date }
            : { budget, future_budget: null, future_budget_date: null }
          : {}),
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
}
