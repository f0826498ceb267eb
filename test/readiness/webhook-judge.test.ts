import { describe, expect, it } from 'vitest';
import { newProgress, type ObservedCall } from '../../src/readiness/readiness-judge.js';
import { actedOn } from '../../src/readiness/webhook-judge.js';

const SUBJECT = 'test-lead-0AbCdEf1234567890GhIjK';
let n = 0;
const callOf = (url: string, status: number, operation = 'GET /v3/leads/{lead_id}'): ObservedCall => ({
  at: ++n,
  realAt: n,
  partnerId: 'p',
  operation,
  url,
  status,
  requestId: `r${n}`,
  idempotencyKey: undefined,
  requestBody: undefined,
  responseBody: undefined,
  retryAfter: undefined,
});

/** The rule behind acting twice on one message (src/readiness/webhook-judge.ts), alone. */
describe('acting on a test event’s subject', () => {
  it('refutes the same operation on the same subject twice, naming the first request', () => {
    const p = newProgress(0);
    actedOn(p, callOf(`/v3/leads/${SUBJECT}`, 404));
    actedOn(p, callOf(`/v3/leads/${SUBJECT}/events`, 404, 'GET /v3/leads/{lead_id}/events'));
    expect(p.refuted).toEqual({});
    actedOn(p, callOf(`/v3/leads/${SUBJECT}`, 404));
    expect(p.refuted['webhooks.duplicates']?.note).toBe(
      `acted twice on one message: GET /v3/leads/{lead_id} again for ${SUBJECT} (request r1 did it first)`,
    );
  });

  it('lets a transient failure be retried, and takes no alias for a subject', () => {
    const p = newProgress(0);
    actedOn(p, callOf(`/v3/leads/${SUBJECT}`, 503));
    actedOn(p, callOf(`/v3/leads/${SUBJECT}`, 200));
    for (let i = 0; i < 2; i++) actedOn(p, callOf('/v3/private/businesses/test-review-bar-and-grill/reviews', 200));
    expect(p.refuted).toEqual({});
  });
});
