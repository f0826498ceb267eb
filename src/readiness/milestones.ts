/**
 * What a partner's integration must show before it goes live (docs/readiness.md): per interface,
 * milestones proven by the partner's own sandbox traffic. Each names the contract rule behind it
 * and, while it is not green, how to get there. Pure data: the judge (readiness-judge.ts) proves
 * and refutes them.
 */

/** How a milestone is proven. `judged`: by its own rule in the judge; the others generically. */
export type Proof =
  /** An answer of `operation` with a 2xx status (and, with `query`, a query string holding it). */
  | { kind: 'answered'; operation: string; query?: string }
  /** The partner met this error code on `operation`: its client has been through that row. */
  | { kind: 'met'; operation: string; code: string }
  /** By a rule of its own (readiness-judge.ts), over a sequence of calls. */
  | { kind: 'judged' }
  /** From the webhook delivery log when a report is made (readiness-service.ts). */
  | { kind: 'deliveries' }
  /** By the partner's latest drill of this kind (drill-judge.ts). */
  | { kind: 'drill'; drill: string };

export interface Milestone {
  id: string;
  /** The interface it belongs to, as partners are granted them; `resilience` and `webhooks` apply to every partner. */
  interface: string;
  title: string;
  /** The contract rule it checks. */
  rule: string;
  /** How to turn it green. */
  hint: string;
  proof: Proof;
}

const OPENINGS = 'GET /v3/bookings/{business_id}/openings';
const HOLDS = 'POST /v3/bookings/{business_id}/holds';
const RESERVATIONS = 'POST /v3/bookings/{business_id}/reservations';
const STATUS = 'GET /v3/bookings/reservation/{reservation_id}/status';
const CANCEL = 'POST /v3/bookings/reservation/{reservation_id}/cancel';
const SEARCH = 'GET /v3/businesses/search';
const JOB_STATUS = 'GET /v1/reseller/status/{job_id}';

export const OPERATIONS = { OPENINGS, HOLDS, RESERVATIONS, STATUS, CANCEL, SEARCH, JOB_STATUS } as const;

/** The advertising operations that make a job (whose body a rejected receipt must not see again unchanged). */
export const JOB_MAKERS = new Set([
  'POST /v1/reseller/program/create',
  'POST /v1/reseller/program/{program_id}/edit',
  'POST /v1/reseller/program/{program_id}/end',
  'POST /program/{program_id}/pause/v1',
  'POST /program/{program_id}/resume/v1',
]);

/** How long a webhook receiver may take to answer (the contract's delivery timeout). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How many of the latest deliveries the receiver milestone looks at. */
export const DELIVERIES_JUDGED = 50;
/** A job polled more often than this is polled too often. */
export const MIN_POLL_INTERVAL_MS = 1_000;
/** After an error, more calls than this in one second are a retry storm. */
export const STORM_CALLS_PER_SECOND = 10;
/** How long after an error the storm rule watches. */
export const STORM_WINDOW_MS = 5_000;
/** A subscription list older than this is out of sync. */
export const RESYNC_MS = 24 * 3_600_000;

const milestone = (m: Milestone) => m;
const met = (iface: string, operation: string, code: string, hint: string) =>
  milestone({
    id: `${iface}.error.${code.toLowerCase()}`,
    interface: iface,
    title: `Handles ${code} from ${operation}`,
    rule: `The error row ${code} of ${operation}.`,
    hint,
    proof: { kind: 'met', operation, code },
  });

export const MILESTONES: readonly Milestone[] = [
  // Reservations
  milestone({
    id: 'reservations.search',
    interface: 'reservations',
    title: 'Searches with availability',
    rule: 'GET /v3/businesses/search with reservation_date, reservation_time and reservation_covers.',
    hint: 'Search with reservation_date, reservation_time and reservation_covers (and attribute=reservation).',
    proof: { kind: 'answered', operation: SEARCH, query: 'reservation_date=' },
  }),
  milestone({
    id: 'reservations.openings',
    interface: 'reservations',
    title: 'Reads openings',
    rule: 'GET openings with time, date and covers.',
    hint: 'Ask a restaurant for its openings (time, date, covers).',
    proof: { kind: 'answered', operation: OPENINGS },
  }),
  milestone({
    id: 'reservations.hold_then_reserve',
    interface: 'reservations',
    title: 'Holds, then reserves with the hold’s parameters',
    rule: 'A reservation names a hold it was given, with the same date, time and covers (else RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS).',
    hint: 'Hold a slot, then reserve it within 5 minutes with the hold_id and the same date, time and covers.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'reservations.hold_first',
    interface: 'reservations',
    title: 'Never reserves without a hold',
    rule: 'A reservation takes a hold_id from holds.',
    hint: 'Reserve only with a hold_id that holds answered you; never invent or reuse one.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'reservations.status',
    interface: 'reservations',
    title: 'Checks a reservation’s status',
    rule: 'GET reservation status.',
    hint: 'Read the status of a reservation you made.',
    proof: { kind: 'answered', operation: STATUS },
  }),
  milestone({
    id: 'reservations.cancel',
    interface: 'reservations',
    title: 'Cancels a reservation',
    rule: 'POST cancel.',
    hint: 'Cancel a reservation you made.',
    proof: { kind: 'answered', operation: CANCEL },
  }),
  milestone({
    id: 'reservations.credit_card',
    interface: 'reservations',
    title: 'Sends the guest to the url when a credit card is required',
    rule: 'When an opening has credit_card_required true, the partner must not call holds for it; the url is used instead.',
    hint: 'Read openings of a restaurant that requires a credit card and send the guest to the time’s url; do not hold it.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'reservations.expired_hold',
    interface: 'reservations',
    title: 'Holds again when a hold has expired',
    rule: 'A hold is valid 5 minutes; later use gives HOLD_NOT_FOUND. Answer it by holding again, not by retrying the reservation.',
    hint: 'Let a hold expire (or run the hold-expiry drill), then hold again before reserving.',
    proof: { kind: 'judged' },
  }),
  // Resilience: every partner
  milestone({
    id: 'resilience.retry_after',
    interface: 'resilience',
    title: 'Waits Retry-After after a 503',
    rule: 'A 503 Service Unavailable with Retry-After: the call is tried again no sooner.',
    hint: 'Add a fault rule (503 with retry_after_seconds) or run the 503 drill; retry only after Retry-After.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'resilience.idempotency_key',
    interface: 'resilience',
    title: 'Retries a POST with the same Idempotency-Key',
    rule: 'A POST tried again after a failure carries the Idempotency-Key of the first try, so it is done once.',
    hint: 'Send an Idempotency-Key with every POST and keep it when you retry the same request.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'resilience.backoff',
    interface: 'resilience',
    title: 'Backs off after a 429',
    rule: 'Over a rate limit (429), the next call of the operation waits Retry-After (a second without one).',
    hint: 'Add a fault rule answering 429 or run the 429 drill; wait before your next call.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'resilience.no_storm',
    interface: 'resilience',
    title: 'No retry storm after errors',
    rule: `After a call fails, at most ${STORM_CALLS_PER_SECOND} calls a second of that operation for the next ${STORM_WINDOW_MS / 1000} s.`,
    hint: 'Retry with backoff and a cap, never in a tight loop; meet an error (a fault rule) to show it.',
    proof: { kind: 'judged' },
  }),
  // Webhooks: every partner with an endpoint
  milestone({
    id: 'webhooks.verified',
    interface: 'webhooks',
    title: 'Webhook endpoint verified',
    rule: 'The endpoint answers GET ?verification=… with {"verification": …}.',
    hint: 'Register your endpoint and answer the verification request.',
    proof: { kind: 'deliveries' },
  }),
  milestone({
    id: 'webhooks.answered',
    interface: 'webhooks',
    title: `Every delivery answered 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s`,
    rule: `Each of the last ${DELIVERIES_JUDGED} deliveries answered 2xx within the ${DELIVERY_TIMEOUT_MS / 1000} s timeout.`,
    hint: 'Answer 2xx at once and do the work after answering.',
    proof: { kind: 'deliveries' },
  }),
  milestone({
    id: 'webhooks.duplicates',
    interface: 'webhooks',
    title: 'Duplicated and reordered deliveries acknowledged',
    rule: 'A message may arrive twice and out of order: answer every copy 2xx and act on each webhook-id once.',
    hint: 'Run the webhook_duplicates drill: answer every copy 2xx within 10 s, and act on each webhook-id once (pbs sees a call about the event repeated).',
    proof: { kind: 'drill', drill: 'webhook_duplicates' },
  }),
  // Advertising
  milestone({
    id: 'advertising.job_polled',
    interface: 'advertising',
    title: 'Polls a job until it is done, not too often',
    rule: `A job's status is asked again later (202: not complete), at most once a ${MIN_POLL_INTERVAL_MS / 1000} s, until COMPLETED or REJECTED.`,
    hint: 'Make a program, then poll its job status every few seconds until it is done.',
    proof: { kind: 'judged' },
  }),
  milestone({
    id: 'advertising.rejected_read',
    interface: 'advertising',
    title: 'Reads a rejected receipt and does not resubmit it unchanged',
    rule: 'A REJECTED entry carries an error code; the same request again is rejected again.',
    hint: 'Make a job that is rejected (an end date in the past), read its receipt, and change the request before sending it again.',
    proof: { kind: 'judged' },
  }),
  // Subscriptions
  milestone({
    id: 'subscriptions.resync',
    interface: 'business_subscriptions',
    title: 'Re-syncs its subscriptions within 24 h',
    rule: 'Subscribing is asynchronous (202): the list is read back to know what holds.',
    hint: 'Read your subscriptions (GET /v3/businesses/subscriptions) at least once a day.',
    proof: { kind: 'judged' },
  }),
  // Waitlist
  milestone({
    id: 'waitlist.status',
    interface: 'waitlist',
    title: 'Reads a waitlist’s status',
    rule: 'GET waitlist status.',
    hint: 'Read the status of a restaurant linked to you.',
    proof: { kind: 'answered', operation: 'GET /v3/businesses/{business_id}/waitlist/status' },
  }),
  milestone({
    id: 'waitlist.join',
    interface: 'waitlist',
    title: 'Joins a waitlist',
    rule: 'POST waitlist visits returns a visit.',
    hint: 'Join a linked restaurant’s waitlist.',
    proof: { kind: 'answered', operation: 'POST /v3/businesses/{business_id}/waitlist/visits' },
  }),
  milestone({
    id: 'waitlist.visit',
    interface: 'waitlist',
    title: 'Reads a visit',
    rule: 'GET a visit’s details.',
    hint: 'Read the visit you made.',
    proof: { kind: 'answered', operation: 'GET /v3/visits/{visit_id}' },
  }),
  milestone({
    id: 'waitlist.cancel',
    interface: 'waitlist',
    title: 'Cancels a visit',
    rule: 'POST a visit’s cancel.',
    hint: 'Cancel the visit you made.',
    proof: { kind: 'answered', operation: 'POST /v3/visits/{visit_id}/cancel' },
  }),
  met(
    'waitlist',
    'POST /v3/businesses/{business_id}/waitlist/visits',
    'ALREADY_IN_LINE',
    'Join again with a phone number already in the line, and show the guest the visit they have.',
  ),
  // Private reviews
  milestone({
    id: 'private_reviews.read',
    interface: 'private_reviews',
    title: 'Reads private reviews',
    rule: 'GET a business’s private reviews.',
    hint: 'Read the reviews of a business linked to you.',
    proof: { kind: 'answered', operation: 'GET /v3/private/businesses/{business_id}/reviews' },
  }),
  met(
    'private_reviews',
    'GET /v3/private/businesses/{business_id}/reviews',
    'BUSINESS_NOT_FOUND',
    'Ask for the reviews of a business id that does not exist.',
  ),
  // Engagement
  milestone({
    id: 'engagement.read',
    interface: 'engagement',
    title: 'Reads engagement metrics',
    rule: 'GET engagement for at most 20 business ids.',
    hint: 'Read the engagement of businesses linked to you.',
    proof: { kind: 'answered', operation: 'GET /v3/businesses/engagement' },
  }),
  met(
    'engagement',
    'GET /v3/businesses/engagement',
    'INVALID_REQUEST',
    'Ask for more than 20 business ids at once, and split the ids into requests of 20.',
  ),
  // Leads
  milestone({
    id: 'leads.read',
    interface: 'leads',
    title: 'Reads a lead',
    rule: 'GET a lead.',
    hint: 'Read a lead of a business whose user authorized you.',
    proof: { kind: 'answered', operation: 'GET /v3/leads/{lead_id}' },
  }),
  milestone({
    id: 'leads.events',
    interface: 'leads',
    title: 'Reads a lead’s events',
    rule: 'GET a lead’s events.',
    hint: 'Read the events of a lead.',
    proof: { kind: 'answered', operation: 'GET /v3/leads/{lead_id}/events' },
  }),
  milestone({
    id: 'leads.reply',
    interface: 'leads',
    title: 'Replies to a lead',
    rule: 'POST a lead’s event.',
    hint: 'Post a reply event to a lead.',
    proof: { kind: 'answered', operation: 'POST /v3/leads/{lead_id}/events' },
  }),
  met(
    'leads',
    'POST /v3/leads/{lead_id}/events',
    'SAME_SUCCESSIVE_MESSAGE',
    'Send the same reply twice with no consumer message between, and tell the user it was not sent again.',
  ),
];

export const MILESTONE_BY_ID = new Map(MILESTONES.map((m) => [m.id, m]));

/** The interfaces milestones are listed for, in the order a report shows them. */
export const READINESS_INTERFACES = [...new Set(MILESTONES.map((m) => m.interface))];
