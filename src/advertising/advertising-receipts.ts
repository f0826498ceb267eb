import { toIsoOffset } from '../platform/clock.js';
import { apiError } from '../platform/errors.js';
import { localDate } from '../platform/local-time.js';
import { cents, PACIFIC } from './advertising-rules.js';
import type { AdJob, AdvertisingStore } from './advertising-store.js';
import { EDITABLE, type CreateRequest, type EditRequest } from './advertising-input.js';
import type { KeyErrors, Rejection } from './advertising-judge.js';
import { fromJson } from '../platform/values.js';
import { BoundedMap } from '../platform/bounded-map.js';
import { BatchLoader } from '../platform/batch-loader.js';

/**
 * Job receipts (spec, Advertising; docs/contract/advertising.md §8.4): what a job was asked, and each key's status
 * and error, PROCESSING until the job is applied. The partner polls them
 * (`GET /v1/reseller/status/{job_id}`); the operator's job list shows the same.
 */

export type Entry = { status: 'COMPLETED' | 'PROCESSING' | 'REJECTED'; requested_value: unknown; error?: Rejection };
export type BusinessResult = {
  status: 'COMPLETED' | 'REJECTED';
  identifier_type: 'BUSINESS' | 'PROGRAM';
  identifier: string;
  /** program_added / program_modified (keys to entries) or program_ended (one entry). */
  update_results?: Record<string, Record<string, Entry> | Entry>;
  [key: string]: unknown;
};

function isEntry(value: Record<string, Entry> | Entry): value is Entry {
  return typeof value.status === 'string';
}

/** A create job's request as stored (pbs wrote it with the job; a job of another kind is a fault). */
export function createRequestOf(job: AdJob): CreateRequest {
  const request = fromJson(job.request);
  if (job.kind !== 'create' || !('business_id' in request)) throw new Error(`job ${job.id} holds no create request`);
  return request;
}

/** An edit job's request as stored (an end request reads as an edit that changes nothing). */
export function editRequestOf(job: AdJob): EditRequest {
  const request = fromJson(job.request);
  if (job.kind === 'create' || 'business_id' in request) throw new Error(`job ${job.id} holds no edit request`);
  return request;
}

const PARENT_WAS_REJECTED: Rejection = { code: 'PARENT_WAS_REJECTED', message: 'Another part of the request failed.' };

/**
 * The keys of program_added (spec; docs/contract/advertising.md §8.4), each made into an entry by
 * `entry`; currency, ad_categories and promotion_code when sent.
 */
export function addedKeys(
  request: CreateRequest,
  startDate: string,
  programId: string | null,
  entry: (key: string, value: unknown) => Entry,
) {
  const added: Record<string, Entry> = {
    start: entry('start', startDate),
    end: entry('end', request.end ?? null),
    program_name: entry('program_name', request.program_name),
    program_id: entry('program_id', programId),
    // docs/contract/advertising.md §8.4: current clients read yelp_business_id; the spec names it svc_business_id.
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

/** The keys of program_modified: program_id and each key the edit changes (prices as numbers when they are). */
export function modifiedKeys(request: EditRequest, entry: (key: string, value: unknown) => Entry) {
  const modified: Record<string, Entry> = { program_id: entry('program_id', request.program_id) };
  for (const key of EDITABLE) {
    const value = request[key];
    if (value !== undefined)
      modified[key] = entry(key, (key === 'budget' || key === 'max_bid') && typeof value === 'string' ? (cents(value) ?? value) : value);
  }
  return modified;
}

/** The entries of a judged request: all COMPLETED, or all REJECTED (each with its own error or PARENT_WAS_REJECTED). */
export function entries(errors: KeyErrors) {
  const rejected = Object.keys(errors).length > 0;
  return (key: string, value: unknown): Entry =>
    rejected
      ? { status: 'REJECTED', requested_value: value, error: errors[key] ?? PARENT_WAS_REJECTED }
      : { status: 'COMPLETED', requested_value: value };
}

/** Whether a business result holds a refusal: refused whole, or any key REJECTED. */
export function hasRejection(result: BusinessResult): boolean {
  if (result.status === 'REJECTED') return true;
  const updates = result.update_results;
  if (!updates) return false;
  return Object.values(updates).some((value) =>
    isEntry(value) ? value.status === 'REJECTED' : Object.values(value).some((e) => e.status === 'REJECTED'),
  );
}

/** The receipt entry of a job still PROCESSING: what was asked, every key PROCESSING. */
function processingResult(job: AdJob) {
  const processing = (_key: string, value: unknown): Entry => ({ status: 'PROCESSING', requested_value: value });
  if (job.kind === 'end') {
    return {
      status: 'PROCESSING',
      identifier_type: 'PROGRAM',
      identifier: job.program_id,
      update_results: { program_ended: processing('program_ended', job.program_id) },
    };
  }
  if (job.kind === 'edit') {
    const edit = editRequestOf(job);
    return {
      status: 'PROCESSING',
      identifier_type: 'PROGRAM',
      identifier: job.program_id,
      update_results: { program_modified: modifiedKeys(edit, processing) },
    };
  }
  const request = createRequestOf(job);
  const added = addedKeys(request, request.start ?? localDate(job.created_at, PACIFIC), null, processing);
  return { status: 'PROCESSING', identifier_type: 'BUSINESS', identifier: request.business_id, update_results: { program_added: added } };
}

/** A job's receipt (spec; docs/contract/advertising.md §8.4), the partner's and the operator's view alike. */
export function receipt(job: AdJob) {
  const results = job.results !== null ? fromJson(job.results) : [processingResult(job)];
  return {
    status: job.status,
    created_at: toIsoOffset(job.created_at),
    completed_at: job.completed_at === null ? null : toIsoOffset(job.completed_at),
    business_results: results,
  };
}

/** A job's receipt as the status endpoint answers it: 202 while PROCESSING, 200 once COMPLETED, and its JSON bytes. */
export interface JobReceipt {
  statusCode: 200 | 202;
  body: Buffer;
}

/** Receipts (of each kind) the status endpoint keeps in memory, about 1 KB each (emptied when full, refilled by polls). */
const RECEIPTS_KEPT = 20_000;
/** How long a job read as PROCESSING is answered so without asking the database again. */
const PROCESSING_VERDICT_MS = 200;

/**
 * `GET /v1/reseller/status/{job_id}`: the receipt as JSON text, with 202 while the job is
 * PROCESSING (docs/contract/advertising.md §8.4: "Job not complete") and 200 once COMPLETED. Another partner's job is
 * 404. A completed receipt never changes, so its text is kept in memory and polls of it are
 * answered without the database; the stored results are embedded as written. A PROCESSING
 * verdict is reused for PROCESSING_VERDICT_MS.
 */
export class JobStatus {
  /** Receipts of completed jobs as JSON bytes (immutable, so any process may keep them). */
  private readonly completed = new BoundedMap<string, { partnerId: string; body: Buffer }>(RECEIPTS_KEPT);
  /**
   * Receipts of jobs seen PROCESSING, as JSON bytes, with how long (wall clock) that verdict
   * stands: a job applied by this process is forgotten at once; one applied by another process
   * shows as COMPLETED at most PROCESSING_VERDICT_MS later (clients are told Retry-After: 1).
   */
  private readonly processing = new BoundedMap<string, { partnerId: string; body: Buffer; until: number }>(RECEIPTS_KEPT);

  /**
   * Reads of a job under way, by job: polls that find no verdict meanwhile join the read, so a
   * job costs one query at a time however many poll it (ADR 0007, coalesced misses).
   */
  private readonly reading = new BatchLoader<AdJob | undefined>();
  /** Moves on every `forget`: a read begun before it must not keep its PROCESSING verdict. */
  private forgets = 0;

  constructor(private readonly store: () => AdvertisingStore) {}

  /** The receipt: at once (no promise) when it is kept, as a poll's nearly always is; else after one read. */
  read(partnerId: string, jobId: string): JobReceipt | Promise<JobReceipt> {
    const known = this.completed.get(jobId);
    if (known) {
      if (known.partnerId !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
      return { statusCode: 200, body: known.body };
    }
    const processing = this.processing.get(jobId);
    if (processing && processing.until > Date.now()) {
      if (processing.partnerId !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
      return { statusCode: 202, body: processing.body };
    }
    return this.load(partnerId, jobId, processing?.body);
  }

  private async load(partnerId: string, jobId: string, processingBody: Buffer | undefined): Promise<JobReceipt> {
    const forgets = this.forgets;
    const job = await this.reading.loadOne(jobId, (id) => this.store().findJob(id));
    if (!job || job.partner_id !== partnerId) throw apiError('NOT_FOUND', 'Not Found: no such job');
    if (job.status !== 'COMPLETED' || job.results === null) {
      const body = processingBody ?? Buffer.from(JSON.stringify(receipt(job)));
      if (forgets === this.forgets)
        this.processing.set(jobId, { partnerId: job.partner_id, body, until: Date.now() + PROCESSING_VERDICT_MS });
      return { statusCode: 202, body };
    }
    this.processing.delete(jobId);
    const body = Buffer.from(
      `{"status":"COMPLETED","created_at":"${toIsoOffset(job.created_at)}","completed_at":"${toIsoOffset(job.completed_at!)}","business_results":${job.results}}`,
    );
    this.completed.set(jobId, { partnerId: job.partner_id, body });
    return { statusCode: 200, body };
  }

  /** Called after a job's receipt is committed by this process: a poll must not see PROCESSING again. */
  forget(jobId: string): void {
    this.forgets++;
    this.processing.delete(jobId);
    // A read begun before the commit may still answer PROCESSING: later polls must not join it.
    this.reading.forget(jobId);
  }
}
