import { refute, TRANSIENT, type ObservedCall, type Progress } from './readiness-progress.js';

/**
 * Whether a partner acts on each webhook message once (docs/readiness.md "Acting twice on one
 * message"). A message may arrive twice; a receiver that does not de-duplicate by webhook-id
 * does again what the first copy made it do. pbs sees that only where a delivery leads to API
 * calls, so it watches the calls that name a test event's subject: test events (and the webhook
 * drill's) carry made-up ids that only a delivery tells (`test-reservation-…`, `test-lead-…`),
 * so every call naming one was caused by a delivery, and each message has its own. The same
 * operation on the same subject twice, the first answered (a transient failure may be retried),
 * is the action repeated. Pure.
 */

/** Test events' subjects (webhooks' test-events.ts): `test-<kind>-<id>`, the id 22 base62 characters, so no alias matches. */
const TEST_SUBJECT = /test-(?:reservation|lead|visit|job|program|review)-[0-9A-Za-z]{22}(?![0-9A-Za-z])/;
/** Subjects remembered at once; the oldest is forgotten first. */
export const MAX_ACTED = 100;

export function actedOn(p: Progress, call: ObservedCall): void {
  const subject = TEST_SUBJECT.exec(call.url)?.[0];
  if (!subject || TRANSIENT.has(call.status)) return;
  const acted = (p.acted ??= {});
  const done = (acted[subject] ??= {});
  const first = done[call.operation];
  if (first === undefined) {
    done[call.operation] = call.requestId;
    const subjects = Object.keys(acted);
    if (subjects.length > MAX_ACTED) delete acted[subjects[0]];
    return;
  }
  refute(
    p,
    'webhooks.duplicates',
    { at: call.at, requestId: call.requestId },
    `acted twice on one message: ${call.operation} again for ${subject} (request ${first} did it first)`,
  );
}
