import { STORM_CALLS_PER_SECOND, STORM_WINDOW_MS } from './milestones.js';
import {
  digestOf,
  pathOf,
  prove,
  refute,
  RETRY_WINDOW_MS,
  TRANSIENT,
  type Failure,
  type ObservedCall,
  type Progress,
} from './readiness-progress.js';

/**
 * The resilience rules (docs/readiness.md "Resilience"): a failed call's retry waits Retry-After,
 * carries the first try's Idempotency-Key, backs off after a 429, and does not storm. Pure.
 */
export function resilience(p: Progress, call: ObservedCall): void {
  const path = pathOf(call.url);
  const failure = p.failures[call.operation];
  if (failure) {
    delete p.failures[call.operation];
    const waited = Math.round(call.realAt - failure.realAt);
    // Over a rate limit: the next call of the operation waits Retry-After, a second without one.
    if (failure.status === 429) {
      const wanted = failure.retryAfterMs ?? 1_000;
      if (waited >= wanted) prove(p, 'resilience.backoff', call);
      else refute(p, 'resilience.backoff', call, `called again ${waited} ms after a 429 that asked for ${wanted} ms`);
    }
    if (waited <= RETRY_WINDOW_MS && failure.path === path) {
      if (failure.status === 503 && failure.retryAfterMs !== undefined) {
        if (waited >= failure.retryAfterMs) prove(p, 'resilience.retry_after', call);
        else
          refute(
            p,
            'resilience.retry_after',
            call,
            `retried ${waited} ms after a 503 whose Retry-After asked for ${failure.retryAfterMs} ms`,
          );
      }
      // The same request again (same path and body) is a retry: it must carry the first try's key.
      if (call.operation.startsWith('POST ') && failure.bodyDigest === digestOf(call.requestBody)) {
        if (failure.key !== undefined && call.idempotencyKey === failure.key) prove(p, 'resilience.idempotency_key', call);
        else
          refute(
            p,
            'resilience.idempotency_key',
            call,
            failure.key === undefined
              ? 'a POST retried after a failure, with no Idempotency-Key on either try'
              : `a POST retried after a failure with ${call.idempotencyKey === undefined ? 'no' : 'another'} Idempotency-Key`,
          );
      }
    }
  }
  if (p.storm && p.storm.operation === call.operation) {
    if (call.realAt > p.storm.until) {
      prove(p, 'resilience.no_storm', { at: p.storm.at, requestId: p.storm.requestId });
      p.storm = undefined;
    } else {
      const second = Math.floor(call.realAt / 1000);
      p.storm.calls = second === p.storm.second ? p.storm.calls + 1 : 1;
      p.storm.second = second;
      if (p.storm.calls > STORM_CALLS_PER_SECOND) {
        refute(
          p,
          'resilience.no_storm',
          call,
          `more than ${STORM_CALLS_PER_SECOND} calls of ${call.operation} in a second after it failed`,
        );
        p.storm = undefined;
      }
    }
  }
  if (TRANSIENT.has(call.status)) {
    const seconds = Number(call.retryAfter);
    const failed: Failure = {
      realAt: call.realAt,
      status: call.status,
      retryAfterMs: call.retryAfter !== undefined && Number.isFinite(seconds) ? seconds * 1000 : undefined,
      requestId: call.requestId,
      key: call.idempotencyKey,
      path,
      bodyDigest: digestOf(call.requestBody),
    };
    p.failures[call.operation] = failed;
    if (p.storm && call.realAt > p.storm.until) prove(p, 'resilience.no_storm', { at: p.storm.at, requestId: p.storm.requestId });
    if (!p.storm || call.realAt > p.storm.until)
      p.storm = {
        operation: call.operation,
        until: call.realAt + STORM_WINDOW_MS,
        second: Math.floor(call.realAt / 1000),
        calls: 0,
        requestId: call.requestId,
        at: call.at,
      };
  }
}
