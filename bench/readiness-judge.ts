/**
 * What the readiness judge costs a call, alone (docs/readiness.md "Cost"): the writer thread's
 * fold of a batch of 2,000 openings calls of one partner (answers of openings' size, one time in
 * eight needing a credit card) into its progress, as readiness-tracker.ts does it per batch.
 * Run: `npx tsx bench/readiness-judge.ts`.
 */
import { progressAfter } from '../src/readiness/readiness-tracker.js';
import type { ObservedCall } from '../src/readiness/readiness-judge.js';

const answer = JSON.stringify({
  reservation_times: Array.from({ length: 4 }, (_, d) => ({
    date: `2031-05-0${d + 5}`,
    times: Array.from({ length: 8 }, (_, t) => ({ time: `1${t}:00`, credit_card_required: t === 3, url: 'https://example.com/book' })),
  })),
});
const calls: ObservedCall[] = Array.from({ length: 2000 }, (_, i) => ({
  at: 1e12 + i,
  realAt: 1e12 + i,
  partnerId: 'p1',
  operation: 'GET /v3/bookings/{business_id}/openings',
  url: `/v3/bookings/b${i % 1000}/openings?date=2031-05-07&time=19:00&covers=2`,
  status: 200,
  requestId: `r${i}`,
  idempotencyKey: undefined,
  requestBody: undefined,
  responseBody: answer,
  retryAfter: undefined,
}));

let stored = [{ partner_id: 'p1', progress: '' }];
const fold = () => {
  const [[, progress]] = progressAfter(stored, calls);
  stored = [{ partner_id: 'p1', progress: String(progress) }];
};
for (let i = 0; i < 20; i++) fold();
const rounds = 100;
const started = performance.now();
for (let i = 0; i < rounds; i++) fold();
const micros = ((performance.now() - started) * 1000) / (rounds * calls.length);
console.log(
  `readiness judge: ${micros.toFixed(2)} µs a call (${calls.length} calls a batch, answers of ${answer.length} bytes, progress of ${stored[0].progress.length} bytes)`,
);
