import { JOB_MAKERS, MILESTONES, MIN_POLL_INTERVAL_MS, OPERATIONS, RESYNC_MS, type Milestone } from './milestones.js';
import { resilience } from './resilience-judge.js';
import { actedOn } from './webhook-judge.js';
import {
  digestOf,
  errorCodeOf,
  MAX_EXPIRED,
  MAX_HOLDS,
  MAX_JOBS,
  parse,
  pathOf,
  prove,
  refute,
  remember,
  text,
  type ObservedCall,
  type Progress,
} from './readiness-progress.js';

export { newProgress, type ObservedCall, type Progress, type Mark } from './readiness-progress.js';

/**
 * The readiness judge (docs/readiness.md): folds a partner's calls, in the order they were
 * answered, into its progress: which milestones its traffic proved, which it refuted, and the
 * little it must remember of past calls to judge the next (the holds it was given, the failure
 * it may be retrying). Pure: no database, no clock but the calls' own times.
 */

const ANSWERED = new Map<string, Milestone[]>();
const MET = new Map<string, Milestone[]>();
for (const m of MILESTONES) {
  const into = m.proof.kind === 'answered' ? ANSWERED : m.proof.kind === 'met' ? MET : undefined;
  if (into && 'operation' in m.proof) into.set(m.proof.operation, [...(into.get(m.proof.operation) ?? []), m]);
}

/** Folds one call into `p`. Calls of other partners and unauthenticated calls are not the judge's. */
export function observe(p: Progress, call: ObservedCall): void {
  if (call.at < p.since) return;
  const ok = call.status >= 200 && call.status < 300;
  const code = call.status >= 400 ? errorCodeOf(call.responseBody) : undefined;
  resilience(p, call);
  // Only a test event's subject can be named so: the rest of the traffic costs one search.
  if (call.url.includes('test-')) actedOn(p, call);
  for (const m of ANSWERED.get(call.operation) ?? [])
    if (ok && (m.proof.kind !== 'answered' || !m.proof.query || call.url.includes(m.proof.query))) prove(p, m.id, call);
  for (const m of MET.get(call.operation) ?? []) if (m.proof.kind === 'met' && code === m.proof.code) prove(p, m.id, call);
  switch (call.operation) {
    case OPERATIONS.OPENINGS:
      if (ok) openings(p, call);
      break;
    case OPERATIONS.HOLDS:
      hold(p, call, ok);
      break;
    case OPERATIONS.RESERVATIONS:
      reservation(p, call, ok, code);
      break;
    case OPERATIONS.JOB_STATUS:
      jobStatus(p, call);
      break;
    case 'GET /v3/businesses/subscriptions':
    case 'GET /listing_management/businesses/v1':
      if (ok) p.synced = call.at;
      break;
    default:
      if (JOB_MAKERS.has(call.operation) && ok) jobMade(p, call);
  }
}

/** Milestones that time decides (a window that closed: real time; a sync that got old: pbs time). */
export function settle(p: Progress, now: number, realNow: number): void {
  if (p.storm && realNow > p.storm.until) {
    prove(p, 'resilience.no_storm', { at: p.storm.at, requestId: p.storm.requestId });
    p.storm = undefined;
  }
  if (p.synced !== undefined) {
    if (now - p.synced <= RESYNC_MS) prove(p, 'subscriptions.resync', { at: p.synced, requestId: '' });
    else delete p.proven['subscriptions.resync'];
  }
}

/**
 * Openings that offered a time needing a credit card: the partner has met the case. Whether it
 * then held such a time shows in the hold's own answer (no hold_id, credit_card_hold), so the
 * openings answer is only searched, never parsed (it is on every partner's busiest path).
 */
function openings(p: Progress, call: ObservedCall): void {
  if (call.responseBody?.includes('"credit_card_required":true')) prove(p, 'reservations.credit_card', call);
}

function hold(p: Progress, call: ObservedCall, ok: boolean): void {
  const form = parse(call.requestBody);
  const path = pathOf(call.url).replace(/\/holds$/, '');
  const slot = form ? { date: text(form.date), time: text(form.time), covers: text(form.covers) } : undefined;
  const answer = ok ? parse(call.responseBody) : undefined;
  if (answer?.credit_card_hold === true || (ok && answer?.hold_id === null))
    refute(p, 'reservations.credit_card', call, 'held a slot that requires a credit card (the hold had no hold_id)');
  // An expired hold of this restaurant, answered by holding again.
  const expired = p.expired.findIndex((e) => e.path === path);
  if (expired >= 0) {
    prove(p, 'reservations.expired_hold', call);
    p.expired.splice(expired, 1);
  }
  if (ok && slot && typeof answer?.hold_id === 'string') {
    p.holds.push({ id: answer.hold_id, path, ...slot, at: call.at });
    if (p.holds.length > MAX_HOLDS) p.holds.shift();
  }
}

function reservation(p: Progress, call: ObservedCall, ok: boolean, code: string | undefined): void {
  const form = parse(call.requestBody);
  const path = pathOf(call.url).replace(/\/reservations$/, '');
  const holdId = form && typeof form.hold_id === 'string' && form.hold_id !== '' ? form.hold_id : undefined;
  const held = holdId === undefined ? undefined : p.holds.find((h) => h.id === holdId);
  if (p.expired.some((e) => e.id === holdId))
    refute(p, 'reservations.expired_hold', call, 'retried the reservation with a hold that had expired, instead of holding again');
  if (!held) {
    refute(
      p,
      'reservations.hold_first',
      call,
      holdId === undefined ? 'a reservation without a hold_id' : 'a reservation with a hold_id holds never answered you',
    );
    return;
  }
  if (code === 'HOLD_NOT_FOUND') {
    remember(p.expired, { id: held.id, path, at: call.at, requestId: call.requestId }, MAX_EXPIRED);
    return;
  }
  if (code === 'CREDIT_CARD_REQUIRED') refute(p, 'reservations.credit_card', call, 'tried to reserve a slot that requires a credit card');
  if (code === 'RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS')
    refute(p, 'reservations.hold_then_reserve', call, 'the reservation’s date, time or covers differ from its hold’s');
  const same = form && text(form.date) === held.date && text(form.time) === held.time && text(form.covers) === held.covers;
  if (ok && same) {
    prove(p, 'reservations.hold_then_reserve', call);
    prove(p, 'reservations.hold_first', call);
  }
}

function jobMade(p: Progress, call: ObservedCall): void {
  const answer = parse(call.responseBody);
  const jobId = answer && typeof answer.job_id === 'string' ? answer.job_id : undefined;
  if (!jobId) return;
  // The same request as one a rejected job came from: sent again unchanged. Its parameters may be
  // in the query string as well as the body, so both are compared.
  const request = digestOf(`${call.url}\n${call.requestBody ?? ''}`);
  const again = Object.values(p.jobs).some((j) => j.rejected && j.operation === call.operation && j.bodyDigest === request);
  if (again) refute(p, 'advertising.rejected_read', call, 'sent again unchanged a request whose job was rejected');
  p.jobs[jobId] = { polled: 0, operation: call.operation, bodyDigest: request };
  const ids = Object.keys(p.jobs);
  if (ids.length > MAX_JOBS) delete p.jobs[ids[0]];
}

function jobStatus(p: Progress, call: ObservedCall): void {
  const jobId = decodeURIComponent(pathOf(call.url).split('/').pop() ?? '');
  const job = (p.jobs[jobId] ??= { polled: 0 });
  const since = Math.round(call.realAt - job.polled);
  if (job.polled > 0 && since < MIN_POLL_INTERVAL_MS) refute(p, 'advertising.job_polled', call, `polled ${since} ms after the last poll`);
  job.polled = call.realAt;
  const body = call.responseBody ?? '';
  if (call.status === 200 && /"status"\s*:\s*"(COMPLETED|REJECTED)"/.test(body) && !body.includes('"PROCESSING"'))
    prove(p, 'advertising.job_polled', call);
  if (call.status === 200 && body.includes('"REJECTED"')) {
    job.rejected = true;
    prove(p, 'advertising.rejected_read', call);
  }
}
