import { DELIVERY_TIMEOUT_MS, OPERATIONS } from './milestones.js';
import type { Mark, Progress } from './readiness-progress.js';

/**
 * Drills (docs/readiness.md "Drills"): scripted failures pbs runs against a partner's client
 * within a time box, graded by the milestone rules its calls meet meanwhile. Pure: what each drill
 * does and how it is graded; drill-service.ts carries them out.
 */

export const DRILL_KINDS = ['retry_after', 'rate_limit', 'hold_expiry', 'slow_answer', 'webhook_duplicates'] as const;
export type DrillKind = (typeof DRILL_KINDS)[number];

/** A drill's time box, seconds. */
export const DRILL_SECONDS = { min: 30, max: 3600, default: 300 } as const;

/** A fault rule a drill adds for the partner (docs/faults.md), for `operation`. */
export interface DrillFault {
  action: 'error' | 'latency';
  status?: number;
  error_code?: string;
  retry_after_seconds?: number;
  latency_ms?: number;
  count: number;
}

export interface DrillKindSpec {
  interface: string;
  title: string;
  /** What pbs does, and what a client that follows the contract does about it. */
  description: string;
  /** The operation its faults act on when none is chosen. */
  defaultOperation?: string;
  /** Operations it may act on; undefined: none (it acts on webhooks). */
  operations?: readonly string[];
  fault?: DrillFault;
  /** Milestones the client must show during the drill for it to pass. */
  needs: readonly string[];
  /** Milestones the client must not refute during the drill. */
  watch: readonly string[];
}

const POSTS = [OPERATIONS.HOLDS, OPERATIONS.RESERVATIONS, OPERATIONS.CANCEL];
const ANY = [OPERATIONS.OPENINGS, OPERATIONS.STATUS, OPERATIONS.SEARCH, OPERATIONS.JOB_STATUS, ...POSTS];

/** The test events a webhook drill sends, each duplicated and reordered. */
export const WEBHOOK_DRILL_EVENTS = 5;

export const DRILLS: Record<DrillKind, DrillKindSpec> = {
  retry_after: {
    interface: 'resilience',
    title: '503 with Retry-After',
    description:
      'The next 2 calls of the operation are answered 503 Service Unavailable with Retry-After: 2. Wait it, retry with the same Idempotency-Key, no storm.',
    defaultOperation: OPERATIONS.HOLDS,
    operations: ANY,
    fault: { action: 'error', status: 503, error_code: 'SERVICE_UNAVAILABLE', retry_after_seconds: 2, count: 2 },
    needs: ['resilience.retry_after'],
    watch: ['resilience.retry_after', 'resilience.idempotency_key', 'resilience.no_storm'],
  },
  rate_limit: {
    interface: 'resilience',
    title: '429 over the rate limit',
    description: 'The next 3 calls of the operation are answered 429 with Retry-After: 1. Back off before calling again.',
    defaultOperation: OPERATIONS.OPENINGS,
    operations: ANY,
    fault: { action: 'error', status: 429, error_code: 'TOO_MANY_REQUESTS_PER_SECOND', retry_after_seconds: 1, count: 3 },
    needs: ['resilience.backoff'],
    watch: ['resilience.backoff', 'resilience.no_storm', 'resilience.idempotency_key'],
  },
  hold_expiry: {
    interface: 'reservations',
    title: 'A hold expiring under your feet',
    description: 'Your next reservation is answered HOLD_NOT_FOUND, as if its hold had expired. Hold again; do not retry the reservation.',
    defaultOperation: OPERATIONS.RESERVATIONS,
    operations: [OPERATIONS.RESERVATIONS],
    fault: { action: 'error', status: 404, error_code: 'HOLD_NOT_FOUND', count: 1 },
    needs: ['reservations.expired_hold'],
    watch: ['reservations.expired_hold', 'reservations.hold_first'],
  },
  slow_answer: {
    interface: 'resilience',
    title: 'A slow answer near your timeout',
    description:
      'The next call of the operation is answered after 8 s. Wait for it, or time out and retry the same request with the same Idempotency-Key; no storm.',
    defaultOperation: OPERATIONS.HOLDS,
    operations: ANY,
    fault: { action: 'latency', latency_ms: 8_000, count: 1 },
    needs: [],
    watch: ['resilience.idempotency_key', 'resilience.no_storm'],
  },
  webhook_duplicates: {
    interface: 'webhooks',
    title: 'Duplicated and reordered deliveries',
    description: `${WEBHOOK_DRILL_EVENTS} test events, each delivered twice in random order. Answer every copy 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s and act on each message once (de-duplicate by webhook-id): pbs watches your calls naming each event's subject.`,
    needs: ['webhooks.duplicates'],
    watch: [],
  },
};

/** The marks of a drill's milestones when it started, to tell what the client showed since. */
export interface DrillSnapshot {
  proven: Record<string, Mark | null>;
  refuted: Record<string, Mark | null>;
}

export function snapshotOf(spec: DrillKindSpec, progress: Progress | undefined): DrillSnapshot {
  const ids = [...new Set([...spec.needs, ...spec.watch])];
  return {
    proven: Object.fromEntries(ids.map((id) => [id, progress?.proven[id] ?? null])),
    refuted: Object.fromEntries(ids.map((id) => [id, progress?.refuted[id] ?? null])),
  };
}

/** The webhook drill's messages as delivered: each message's copies and their attempts. */
export interface DrillDeliveries {
  /** pbs time now. */
  now: number;
  messages: Array<{
    messageId: string;
    /** Each copy's attempts; `at` is pbs time. */
    copies: Array<{ id: string; attempts: Array<{ status_code: number | null; latency_ms: number; at: number }> }>;
  }>;
}

/**
 * How long after the last copy was answered the webhook drill waits for the receiver's calls
 * (pbs time), so that acting twice on a message, which a receiver does after answering, is seen
 * before the drill passes. A drill whose time box ends first is graded then.
 */
export const ACT_WINDOW_MS = 5_000;

export const DRILL_STATES = ['running', 'passed', 'failed', 'incomplete'] as const;
export type DrillState = (typeof DRILL_STATES)[number];

export interface DrillGrade {
  state: DrillState;
  milestones: Array<{ id: string; outcome: 'shown' | 'refuted' | 'not shown'; problem: string | null; evidence: string[] }>;
}

/**
 * Grades a drill: failed as soon as a watched milestone is refuted during it; passed once every
 * needed one is shown (a drill that needs none passes when its time is up unrefuted); incomplete
 * when its time is up first.
 */
export function gradeDrill(
  spec: DrillKindSpec,
  snapshot: DrillSnapshot,
  progress: Progress | undefined,
  deliveries: DrillDeliveries | undefined,
  ended: boolean,
): DrillGrade {
  const same = (a: Mark | null | undefined, b: Mark | null | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const ids = [...new Set([...spec.needs, ...spec.watch])];
  const milestones = ids.map((id) => {
    const refuted = progress?.refuted[id];
    if (refuted && !same(refuted, snapshot.refuted[id]))
      return { id, outcome: 'refuted' as const, problem: refuted.note ?? null, evidence: refuted.requestIds };
    if (id === 'webhooks.duplicates') return webhookOutcome(deliveries, ended);
    const proven = progress?.proven[id];
    if (proven && !same(proven, snapshot.proven[id])) return { id, outcome: 'shown' as const, problem: null, evidence: proven.requestIds };
    return { id, outcome: 'not shown' as const, problem: null, evidence: [] };
  });
  const outcome = (id: string) => milestones.find((m) => m.id === id)?.outcome;
  const state: DrillState = milestones.some((m) => m.outcome === 'refuted')
    ? 'failed'
    : spec.needs.length > 0 && spec.needs.every((id) => outcome(id) === 'shown')
      ? 'passed'
      : ended
        ? spec.needs.length === 0
          ? 'passed'
          : 'incomplete'
        : 'running';
  return { state, milestones };
}

/** Every copy answered 2xx in time, and the receiver given ACT_WINDOW_MS since to act (the judge refutes acting twice). */
function webhookOutcome(deliveries: DrillDeliveries | undefined, ended: boolean) {
  const id = 'webhooks.duplicates';
  const messages = deliveries?.messages ?? [];
  const bad = messages.flatMap((m) =>
    m.copies.filter((c) =>
      c.attempts.some((a) => a.status_code === null || a.status_code < 200 || a.status_code >= 300 || a.latency_ms > DELIVERY_TIMEOUT_MS),
    ),
  );
  if (bad.length > 0)
    return {
      id,
      outcome: 'refuted' as const,
      problem: `${bad.length} copies were not answered 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s`,
      evidence: bad.map((c) => c.id).slice(0, 5),
    };
  const answered = messages.length > 0 && messages.every((m) => m.copies.length >= 2 && m.copies.every((c) => c.attempts.length > 0));
  const lastAnswer = Math.max(0, ...messages.flatMap((m) => m.copies.flatMap((c) => c.attempts.map((a) => a.at + a.latency_ms))));
  return answered && (ended || (deliveries !== undefined && deliveries.now - lastAnswer >= ACT_WINDOW_MS))
    ? { id, outcome: 'shown' as const, problem: null, evidence: messages.map((m) => m.messageId).slice(0, 5) }
    : { id, outcome: 'not shown' as const, problem: null, evidence: [] };
}
