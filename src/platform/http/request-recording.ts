import type { FastifyInstance, FastifyRequest, onResponseHookHandler, onSendHookHandler } from 'fastify';
import { operationsOf } from './fault-injection.js';

/**
 * What pbs received and answered on one partner request, as the request hands it over: raw
 * references, no copies. Redaction, masking and caps happen where it is written, off the request
 * path (docs/request-log.md).
 */
export interface RequestRecord {
  /** pbs time (ms) when the answer was sent. */
  at: number;
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
  /** The fault rule that acted on the request, if one did (docs/faults.md). */
  faultRule: string | undefined;
}

/** Implemented by the workbench family; the platform only hands records over. */
export interface RequestRecorder {
  record(record: RequestRecord): void;
}

const answered = Symbol('pbs.answeredPayload');
type WithAnswer = FastifyRequest & { [answered]?: string | Buffer };

/**
 * Hands every partner route's request and answer to `recorder` once the answer is sent. Install
 * after the guards, so the answer seen is the final one (a replayed Idempotency-Key answer too).
 */
export function installRequestRecording(app: FastifyInstance, recorder: RequestRecorder, now: () => number): void {
  const keepAnswer: onSendHookHandler = (request: WithAnswer, _reply, payload, done) => {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) request[answered] = payload;
    done(null, payload);
  };
  // One per route: its interface and operation are named once, not read from the request.
  const recordFor = (declared: unknown, operationOf: (request: FastifyRequest) => string): onResponseHookHandler => {
    const routeInterface = Array.isArray(declared) ? String(declared[0]) : String(declared);
    return (request: WithAnswer, reply, done) => {
      const principal = request.principal ?? request.identified;
      const key = request.headers['idempotency-key'];
      recorder.record({
        at: now(),
        interface: routeInterface,
        operation: operationOf(request),
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        requestId: request.id,
        idempotencyKey: typeof key === 'string' ? key : undefined,
        partnerId: principal?.partnerId,
        credentialKind: principal?.credentialKind,
        credentialId: principal?.credentialId,
        clientAddress: request.ip,
        requestBody: request.body,
        responseBody: request[answered],
        faultRule: request.faultRule,
      });
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.partner) return;
    route.onSend = [...toArray(route.onSend), keepAnswer];
    route.onResponse = [...toArray(route.onResponse), recordFor(route.config.partner.interface, operationsOf(route.url))];
  });
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
