import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { ApiError, errorCatalogue, type ErrorCode } from '../errors.js';
import { recordUnanswered } from './request-recording.js';

/** A fault rule's action for one request (docs/faults.md). */
export type FaultAction =
  { kind: 'error'; status: number; code: ErrorCode; retryAfterSeconds: number | null } | { kind: 'latency'; ms: number } | { kind: 'drop' };

export interface InjectedFault {
  ruleId: string;
  action: FaultAction;
}

/** Implemented by the workbench family: the fault to inject on this call, if a rule matches (and takes it). */
export interface FaultInjector {
  /** Cheap when the partner has no rule (nearly always); claims one use of a counted rule. */
  take(partnerId: string, operation: string, businessId: string | undefined): Promise<InjectedFault | undefined> | undefined;
}

/** The header an injected answer carries, naming the rule. */
export const FAULT_HEADER = 'pbs-fault-injected';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault rule that acted on this request, if one did. */
    faultRule?: string;
    /** The rule's answer replaced the API's (an error or a dropped connection), not only delayed it. */
    faultAnswered?: boolean;
  }
}

/**
 * Runs before the handler and before an Idempotency-Key is claimed, so an injected answer
 * changes nothing: an error is answered instead of the operation, latency delays it, a drop
 * closes the connection without an answer.
 */
export function faultGuard(injector: FaultInjector, operationOf: (request: FastifyRequest) => string): preHandlerHookHandler {
  return function injectFault(request, reply, done) {
    const partnerId = request.principal?.partnerId;
    const pending = partnerId ? injector.take(partnerId, operationOf(request), businessOf(request)) : undefined;
    if (!pending) return done();
    pending.then((fault) => (fault ? act(fault, request, reply, done) : done()), done);
  };
}

function act(fault: InjectedFault, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  request.faultRule = fault.ruleId;
  reply.header(FAULT_HEADER, fault.ruleId);
  const { action } = fault;
  if (action.kind === 'latency') {
    setTimeout(() => done(), action.ms);
    return;
  }
  request.faultAnswered = true;
  if (action.kind === 'drop') {
    reply.hijack();
    request.raw.socket.destroy();
    // No answer goes out, so the request log's onSend never sees the call: it is recorded here.
    recordUnanswered(request, reply);
    return;
  }
  const headers: Record<string, string> = { [FAULT_HEADER]: fault.ruleId };
  if (action.retryAfterSeconds !== null) headers['retry-after'] = String(action.retryAfterSeconds);
  const description = `${errorCatalogue[action.code].description} (injected by fault rule ${fault.ruleId})`;
  done(new ApiError(action.code, description, { status: action.status, headers }));
}

function businessOf(request: FastifyRequest): string | undefined {
  if (request.business) return request.business.id;
  const params = request.params;
  if (typeof params === 'object' && params !== null && 'business_id' in params && typeof params.business_id === 'string')
    return params.business_id;
  return undefined;
}
