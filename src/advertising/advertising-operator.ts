import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Clock } from '../platform/clock.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent, type DomainEvent } from '../platform/events.js';
import { jsonLines } from '../platform/json-lines.js';
import { parseDate } from '../platform/local-time.js';
import { SettingsStore } from '../platform/settings.js';
import type { TaskRunner } from '../platform/tasks/task-runner.js';
import { programView } from './advertising-rules.js';
import { APPLY_AD_JOB, HOLD_NEW_JOBS_SETTING, type AdvertisingJobs } from './advertising-jobs.js';
import { receipt } from './advertising-receipts.js';
import type { AdProgramDay } from './advertising-store.js';
export { JOB_STATES, PROGRAM_STATES } from './advertising-tables.js';
import { PROGRAM_TYPES, type JobState, type ProgramState, type ProgramType } from './advertising-tables.js';
import { isOneOf, storedStrings } from '../platform/query.js';
import { endProgram } from './advertising-schedule.js';

/** Lines one metrics import over HTTP may hold; the CLI reads files of any size. */
export const MAX_METRIC_LINES = 10_000;
/** Lines stored per transaction, and per progress report. */
const METRIC_BATCH = 1_000;

const flag = (value: unknown, field: string): boolean | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw apiError('VALIDATION_ERROR', `${field} must be true or false`, { field });
  return value;
};

/**
 * The operator's side of advertising (issue 14): what the platform knows that partners cannot
 * set — a business removed from search or restricted from advertising, the category policy,
 * promotion codes, recorded spend, clicks and impressions — and the sandbox's control of jobs.
 */
export class AdvertisingOperator {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly businesses: BusinessDirectory,
    private readonly advertising: AdvertisingJobs,
    private readonly onEventsCommitted: () => void = () => {},
  ) {}

  private store() {
    return this.advertising.store();
  }

  async programs(filter: { partner_id?: string; business_id?: string; state?: ProgramState; limit: number; offset: number }) {
    const rows = await this.store().listPrograms({
      partnerId: filter.partner_id,
      businessId: filter.business_id,
      state: filter.state,
      limit: filter.limit,
      offset: filter.offset,
    });
    const totals = await this.store().totals(rows.map((r) => r.id));
    const features = await this.store().featureTypesOf(rows.map((r) => r.id));
    const now = this.clock.now();
    return {
      programs: rows.map((p) => ({
        ...programView(p, totals.get(p.id), now, features.get(p.id)),
        partner_id: p.partner_id,
        yelp_business_id: p.business_id,
        state: p.state,
      })),
    };
  }

  async jobs(filter: { partner_id?: string; status?: JobState; limit: number; offset: number }) {
    const rows = await this.store().listJobs({
      partnerId: filter.partner_id,
      status: filter.status,
      limit: filter.limit,
      offset: filter.offset,
    });
    return {
      jobs: rows.map((job) => ({ job_id: job.id, partner_id: job.partner_id, kind: job.kind, held: job.held === 1, ...receipt(job) })),
    };
  }

  private async job(jobId: string) {
    const job = await this.store().findJob(jobId);
    if (!job) throw apiError('NOT_FOUND', `No such job ${jobId}`);
    return job;
  }

  /** Holds a PROCESSING job: it stays PROCESSING (202) until released or completed. */
  async hold(jobId: string) {
    const job = await this.job(jobId);
    if (job.status === 'COMPLETED') throw apiError('CONFLICT', 'The job has completed.');
    await this.database.transact((trx) => this.advertising.store(trx).setHeld(jobId, true));
    return this.describe(jobId);
  }

  /** Releases a held job: applied by the background runner after the processing delay as usual. */
  async release(jobId: string) {
    const job = await this.job(jobId);
    if (job.status === 'COMPLETED') throw apiError('CONFLICT', 'The job has completed.');
    await this.database.transact(async (trx) => {
      await this.advertising.store(trx).setHeld(jobId, false);
      await this.tasks.enqueue(trx, APPLY_AD_JOB, { job_id: jobId }, { runAt: this.clock.now() });
    });
    return this.describe(jobId);
  }

  /** Applies a job now, held or not, and answers its receipt. */
  async complete(jobId: string) {
    const job = await this.job(jobId);
    if (job.status === 'COMPLETED') throw apiError('CONFLICT', 'The job has completed.');
    await this.advertising.apply(jobId, { evenHeld: true });
    return this.describe(jobId);
  }

  private async describe(jobId: string) {
    const job = await this.job(jobId);
    return { job_id: job.id, partner_id: job.partner_id, kind: job.kind, held: job.held === 1, ...receipt(job) };
  }

  /**
   * A program started at once for a partner (the demo's advertisers, so that their leads can be
   * read): the partner's create job, applied now rather than after the processing delay.
   */
  async startProgram(partnerId: string, params: Record<string, unknown>): Promise<string> {
    const { job_id } = await this.advertising.createFor(partnerId, params);
    await this.advertising.apply(job_id, { evenHeld: true });
    return job_id;
  }

  async settings() {
    return { hold_new_jobs: (await new SettingsStore(this.database.db).get(HOLD_NEW_JOBS_SETTING)) === 'true' };
  }

  async setSettings(input: { hold_new_jobs?: unknown }) {
    const hold = flag(input.hold_new_jobs, 'hold_new_jobs');
    if (hold !== undefined) {
      const before = await this.settings();
      await this.database.transact(async (trx) => {
        noteAudit({ before, after: { hold_new_jobs: hold } });
        await new SettingsStore(trx).set(HOLD_NEW_JOBS_SETTING, String(hold));
      });
    }
    return this.settings();
  }

  async flags(idOrAlias: string) {
    const business = await this.businesses.requireRef(idOrAlias);
    const row = await this.store().flagsOf(business.id);
    return {
      business_id: business.id,
      removed_from_search: row?.removed_from_search === 1,
      restricted_from_advertising: row?.restricted_from_advertising === 1,
    };
  }

  /**
   * Sets a business's advertising flags. Removing it from search ends its running programs at
   * once (every partner's; spec: PROGRAM_HAS_EXPIRED "end date passed or business removed from
   * search"), with their events.
   */
  async setFlags(idOrAlias: string, input: { removed_from_search?: unknown; restricted_from_advertising?: unknown }) {
    const business = await this.businesses.requireRef(idOrAlias);
    const removed = flag(input.removed_from_search, 'removed_from_search');
    const restricted = flag(input.restricted_from_advertising, 'restricted_from_advertising');
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const store = this.advertising.store(trx);
      const current = await store.flagsOf(business.id);
      const next = {
        business_id: business.id,
        removed_from_search: removed === undefined ? (current?.removed_from_search ?? 0) : removed ? 1 : 0,
        restricted_from_advertising: restricted === undefined ? (current?.restricted_from_advertising ?? 0) : restricted ? 1 : 0,
        updated_at: now,
      };
      await store.saveFlags(next);
      if (next.removed_from_search === 1 && current?.removed_from_search !== 1) {
        const events: DomainEvent[] = [];
        for (const program of await store.programsOfBusiness(business.id)) {
          if (program.state === 'ACTIVE' && program.parent_program_id === null) await endProgram(store, program, now, 'EXPIRED', events);
        }
        for (const event of events) await recordEvent(trx, this.database.dialect, event);
      }
    });
    this.onEventsCommitted();
    return this.flags(business.id);
  }

  async categoryPolicy() {
    return { declined: (await this.store().categoryPolicy()).map((c) => ({ category: c.category, reason: c.reason })) };
  }

  async declineCategory(category: string, reason: unknown) {
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > 500))
      throw apiError('VALIDATION_ERROR', 'reason must be text', { field: 'reason' });
    const row = { category, reason: typeof reason === 'string' ? reason : 'declined by policy', created_at: this.clock.now() };
    await this.database.transact((trx) => this.advertising.store(trx).declineCategory(row));
    return this.categoryPolicy();
  }

  async allowCategory(category: string) {
    await this.database.transact(async (trx) => {
      if (!(await this.advertising.store(trx).allowCategory(category)))
        throw apiError('NOT_FOUND', `The policy does not decline ${category}`);
    });
    return this.categoryPolicy();
  }

  async promotions() {
    return { promotions: (await this.store().promotions()).map(promotionView) };
  }

  /** Creates or replaces a promotion code (docs/contract/advertising.md §8.9). */
  async savePromotion(
    code: string,
    input: { program_types?: unknown; min_budget?: unknown; max_budget?: unknown; months?: unknown; active?: unknown },
  ) {
    const types = input.program_types ?? ['CPC'];
    if (!Array.isArray(types) || types.length === 0 || !types.every((t): t is ProgramType => isOneOf(PROGRAM_TYPES, t))) {
      throw apiError('VALIDATION_ERROR', `program_types must list program types among ${PROGRAM_TYPES.join(', ')}`, {
        field: 'program_types',
      });
    }
    const amount = (value: unknown, field: string) => {
      if (value === undefined || value === null) return null;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        throw apiError('VALIDATION_ERROR', `${field} must be a whole number of cents`, { field });
      return value;
    };
    const min = amount(input.min_budget, 'min_budget');
    const max = amount(input.max_budget, 'max_budget');
    if (min !== null && max !== null && min > max)
      throw apiError('VALIDATION_ERROR', 'min_budget is above max_budget', { field: 'min_budget' });
    const months = input.months ?? 6;
    if (typeof months !== 'number' || !Number.isInteger(months) || months < 1 || months > 24)
      throw apiError('VALIDATION_ERROR', 'months must be 1 to 24', { field: 'months' });
    const active = flag(input.active, 'active') ?? true;
    await this.database.transact(async (trx) => {
      const store = this.advertising.store(trx);
      const existing = await store.promotion(code);
      const next = { program_types: [...new Set(types)], min_budget: min, max_budget: max, months, active };
      noteAudit({ before: existing ? promotionView(existing) : null, after: { code, ...next } });
      await store.savePromotion({
        code,
        program_types: JSON.stringify(next.program_types),
        min_budget: min,
        max_budget: max,
        months: months,
        active: active ? 1 : 0,
        created_at: existing?.created_at ?? this.clock.now(),
      });
    });
    return promotionView((await this.store().promotion(code))!);
  }

  /**
   * Records programs' daily figures from JSON lines `{"program_id", "date", "spend",
   * "billed_clicks", "billed_impressions"}` (cents and counts; a day given again is replaced).
   * All lines are checked before any is stored; then they are stored in batches, each reported
   * to `onProgress` (a failure midway leaves the batches before it stored: importing again is safe).
   */
  async importMetrics(
    text: string,
    options: { maxLines?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ imported: number }> {
    const maxLines = options.maxLines ?? MAX_METRIC_LINES;
    const days: AdProgramDay[] = [];
    for (const { value, where } of jsonLines(text, maxLines)) {
      const count = (field: string) => {
        const n = value[field] ?? 0;
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
          throw apiError('VALIDATION_ERROR', `${where}: ${field} must be a whole number ≥ 0`, { field });
        return n;
      };
      if (typeof value.program_id !== 'string' || value.program_id === '' || value.program_id.length > 64) {
        throw apiError('VALIDATION_ERROR', `${where}: program_id is required`, { field: 'program_id' });
      }
      if (typeof value.date !== 'string' || !parseDate(value.date))
        throw apiError('VALIDATION_ERROR', `${where}: date must be YYYY-MM-DD`, { field: 'date' });
      days.push({
        program_id: value.program_id,
        day: value.date,
        spend: count('spend'),
        billed_clicks: count('billed_clicks'),
        billed_impressions: count('billed_impressions'),
      });
    }
    if (days.length === 0) throw apiError('VALIDATION_ERROR', 'The import holds no lines.');
    const ids = [...new Set(days.map((d) => d.program_id))];
    const known = new Set<string>();
    for (let i = 0; i < ids.length; i += METRIC_BATCH)
      for (const id of await this.store().existingPrograms(ids.slice(i, i + METRIC_BATCH))) known.add(id);
    const unknown = days.find((d) => !known.has(d.program_id));
    if (unknown)
      throw apiError('VALIDATION_ERROR', `No such program ${unknown.program_id}; nothing was imported.`, { field: 'program_id' });
    for (let i = 0; i < days.length; i += METRIC_BATCH) {
      const batch = days.slice(i, i + METRIC_BATCH);
      await this.database.transact((trx) => this.advertising.store(trx).saveDays(batch));
      options.onProgress?.(i + batch.length, days.length);
    }
    return { imported: days.length };
  }
}

function promotionView(p: {
  code: string;
  program_types: string;
  min_budget: number | null;
  max_budget: number | null;
  months: number;
  active: number;
}) {
  return {
    code: p.code,
    program_types: storedStrings(p.program_types),
    min_budget: p.min_budget,
    max_budget: p.max_budget,
    months: p.months,
    active: p.active === 1,
  };
}
