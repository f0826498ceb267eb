import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { operationsOf } from './operation-names.js';

/**
 * What pbs received and answered on one partner request, as the request hands it over: raw
 * references, no copies. Redaction, masking and caps happen where it is written, off the request
 * path (docs/request-log.md).
 */
export interface RequestRecord {
  /** pbs time (ms) when the answer went out. */
  at: number;
  /**
   * Real time (ms) when the answer went out: how long a client waited between calls (a retry
   * after Retry-After) is judged on it, since a client waits in real time while the sandbox clock
   * may stand still or jump (docs/readiness.md).
   */
  realAt: number;
  /** The interface the route belongs to (its first, for routes shared by several). */
  interface: string;
  /** `METHOD /route/{param}`: the operation as the OpenAPI document names its path. */
  operation: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  requestId: string;
  idempotencyKey: string | undefined;
  partnerId: string | undefined;
  credentialKind: string | undefined;
  credentialId: string | undefined;
  clientAddress: string;
  /** The parsed body (an object for JSON and form bodies, text for CSV and NDJSON). */
  requestBody: unknown;
  /** The answer's bytes as sent. */
  responseBody: string | Buffer | undefined;
  /** The answer's Retry-After header (an error's), for the readiness judge (docs/readiness.md). */
  retryAfter: string | undefined;
  /** The fault rule that answered the request, or only delayed one the API answered without error (docs/faults.md). */
  faultRule: string | undefined;
}

/** Implemented by the workbench family; the platform only hands records over. */
export interface RequestRecorder {
  record(record: RequestRecord): void;
}

/** Where a route keeps its way to record a request that gets no answer (`recordUnanswered`). */
const RECORD_UNANSWERED = Symbol('pbs.recordUnanswered');
type Unanswered = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The status the request log gives a request pbs ended without an answer (a fault rule that
 * drops the connection): nginx's "444 No Response", for the same thing.
 */
export const NO_RESPONSE_STATUS = 444;

/**
 * Hands every partner route's request and answer to `recorder` as the answer goes out. Install
 * after the guards, so the answer seen is the final one (a replayed Idempotency-Key answer too):
 * the route's last `onSend` records it, where the answer's bytes, status and time are all known
 * (one hook: a second, in `onResponse`, cost every request more). A request that pbs ends
 * without an answer is recorded by `recordUnanswered`.
 */
export function installRequestRecording(app: FastifyInstance, recorder: RequestRecorder, now: () => number): void {
  // One per route: its interface and operation are named once, not read from the request.
  const recordFor = (declared: unknown, operationOf: (request: FastifyRequest) => string) => {
    const routeInterface = Array.isArray(declared) ? String(declared[0]) : String(declared);
    return (request: FastifyRequest, reply: FastifyReply, status: number, answer: string | Buffer | undefined) => {
      const principal = request.principal ?? request.identified;
      const key = request.headers['idempotency-key'];
      recorder.record({
        at: now(),
        realAt: performance.timeOrigin + performance.now(),
        interface: routeInterface,
        operation: operationOf(request),
        method: request.method,
        url: request.url,
        status,
        durationMs: reply.elapsedTime,
        requestId: request.id,
        idempotencyKey: typeof key === 'string' ? key : undefined,
        partnerId: principal?.partnerId,
        credentialKind: principal?.credentialKind,
        credentialId: principal?.credentialId,
        // Undefined once the connection is gone (a request ended without an answer).
        clientAddress: request.ip ?? '',
        requestBody: request.body,
        responseBody: answer,
        retryAfter: status >= 400 ? headerText(reply.getHeader('retry-after')) : undefined,
        // A rule that only delayed the request is named unless the API's own answer was an
        // error: an entry naming a rule and holding an error always means the rule answered it.
        faultRule: request.faultAnswered || status < 400 ? request.faultRule : undefined,
      });
    };
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.partner) return;
    const record = recordFor(route.config.partner.interface, operationsOf(route.url));
    const onSend: onSendHookHandler = (request, reply, payload, done) => {
      record(request, reply, reply.statusCode, typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined);
      done(null, payload);
    };
    route.onSend = [...toArray(route.onSend), onSend];
    const unanswered: Unanswered = (request, reply) => record(request, reply, NO_RESPONSE_STATUS, undefined);
    Object.assign(route.config, { [RECORD_UNANSWERED]: unanswered });
  });
}

/** Records a request of a partner route that pbs ends without an answer (no `onSend` runs); nothing where the log is off. */
export function recordUnanswered(request: FastifyRequest, reply: FastifyReply): void {
  const record: unknown = Reflect.get(request.routeOptions.config, RECORD_UNANSWERED);
  // Cast: only installRequestRecording sets this key, and always to an Unanswered.
  if (typeof record === 'function') (record as Unanswered)(request, reply);
}

function headerText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
