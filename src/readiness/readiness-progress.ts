import { createHash } from 'node:crypto';
/**
 * A partner's readiness progress (docs/readiness.md): what the judge keeps of its calls, and the
 * marks it sets. Pure data and the small helpers every rule of the judge shares.
 */

/** One call as the request log hands it over (request-log-buffer.ts's decoded record is one). */
export interface ObservedCall {
  /** pbs time (the sandbox clock): when evidence was shown. */
  at: number;
  /** Real time: how long the client waited between calls (the sandbox clock may stand still). */
  realAt: number;
  partnerId: string | undefined;
  operation: string;
  url: string;
  status: number;
  requestId: string;
  idempotencyKey: string | undefined;
  /** JSON for JSON and form bodies, as sent for text ones. */
  requestBody: string | undefined;
  responseBody: string | undefined;
  /** The answer's Retry-After header, seconds. */
  retryAfter: string | undefined;
}

/** Evidence: when, and the X-Request-Id of the calls that showed it (at most MAX_EVIDENCE). */
export interface Mark {
  at: number;
  requestIds: string[];
  note?: string;
}

export interface HeldSlot {
  id: string;
  path: string;
  date: string;
  time: string;
  covers: string;
  at: number;
}

export interface Failure {
  /** Real time (ObservedCall.realAt). */
  realAt: number;
  status: number;
  retryAfterMs: number | undefined;
  requestId: string;
  key: string | undefined;
  path: string;
  /** A digest of the request body (bodies may hold guest data, which readiness never keeps). */
  bodyDigest: string | undefined;
}

export interface Progress {
  /** Calls before this time (pbs ms) are not judged: a partner's or operator's fresh start. */
  since: number;
  proven: Record<string, Mark>;
  refuted: Record<string, Mark>;
  /** Memory of past calls, bounded. */
  holds: HeldSlot[];
  /** Hold ids a reservation was answered HOLD_NOT_FOUND for, and where. */
  expired: Array<{ id: string; path: string; at: number; requestId: string }>;
  /** The last failed call per operation, while it may be retried. */
  failures: Record<string, Failure>;
  /** The storm watch after an error (real time): calls of the failed operation counted in the current second. */
  storm: { operation: string; until: number; second: number; calls: number; requestId: string; at: number } | undefined;
  /** Advertising jobs: last poll (real time), and the request (url and body, by digest) that made each. */
  jobs: Record<string, { polled: number; operation?: string; bodyDigest?: string; rejected?: boolean }>;
  /** The last time each listing of subscriptions was read. */
  synced: number | undefined;
  /** Test events' subjects the partner's calls named: the X-Request-Id of the first call of each operation (webhook-judge.ts). */
  acted?: Record<string, Record<string, string>>;
}

export const MAX_EVIDENCE = 5;
export const MAX_HOLDS = 200;
export const MAX_EXPIRED = 50;
export const MAX_JOBS = 200;
/** A failure older than this is no longer being retried. */
export const RETRY_WINDOW_MS = 10 * 60_000;
export const TRANSIENT = new Set([408, 429, 444, 500, 502, 503, 504]);

export function newProgress(since: number): Progress {
  return {
    since,
    proven: {},
    refuted: {},
    holds: [],
    expired: [],
    failures: {},
    storm: undefined,
    jobs: {},
    synced: undefined,
  };
}

export function prove(p: Progress, id: string, call: { at: number; requestId: string }, note?: string): void {
  p.proven[id] = evidence(p.proven[id], call, note);
}

export function refute(p: Progress, id: string, call: { at: number; requestId: string }, note: string): void {
  p.refuted[id] = evidence(p.refuted[id], call, note);
}

function evidence(mark: Mark | undefined, call: { at: number; requestId: string }, note: string | undefined): Mark {
  const requestIds = call.requestId
    ? [call.requestId, ...(mark?.requestIds ?? []).filter((id) => id !== call.requestId)]
    : (mark?.requestIds ?? []);
  return { at: call.at, requestIds: requestIds.slice(0, MAX_EVIDENCE), ...((note ?? mark?.note) ? { note: note ?? mark?.note } : {}) };
}

export function remember<T>(list: T[], item: T, max: number): void {
  if (typeof item === 'string' && list.includes(item)) return;
  list.push(item);
  if (list.length > max) list.shift();
}

export function pathOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

/** A form or JSON value as the text it was sent as (numbers and strings; anything else is no value). */
export const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

export type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parse(text: string | undefined): Json | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What tells two request bodies apart without keeping either. */
export function digestOf(body: string | undefined): string | undefined {
  return body === undefined ? undefined : createHash('sha256').update(body).digest('base64url').slice(0, 22);
}

export function errorCodeOf(body: string | undefined): string | undefined {
  const match = body ? /^\s*\{\s*"error"\s*:\s*\{\s*"code"\s*:\s*"([A-Z0-9_]{1,80})"/.exec(body) : null;
  return match ? match[1] : undefined;
}
