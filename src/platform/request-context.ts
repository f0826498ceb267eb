import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The partner request a piece of work is done for, so what it writes can say so: an event
 * written while a request is handled carries that request's id, and the request log links the
 * request to the webhook events and deliveries it caused (docs/request-log.md "Links").
 * Entered only while the request log is on (the context costs a little on every await).
 */
const current = new AsyncLocalStorage<string>();

/** The id of the partner request being handled, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}

/** Runs `work` (and everything it awaits) as done for request `requestId`. */
export function runForRequest<T>(requestId: string, work: () => T): T {
  return current.run(requestId, work);
}
