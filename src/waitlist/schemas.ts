import { waitlistConfigSchema } from './waitlist-rules.js';
/** The waitlist routes' JSON schemas (docs/contract/waitlist.md §4): parameters, bodies and answers. */

export const businessParams = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
export const visitParams = {
  type: 'object',
  required: ['visit_id'],
  properties: { visit_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
export const estimateSchema = {
  type: 'object',
  properties: {
    est_wait: { type: 'integer' },
    min_wait: { type: 'integer' },
    max_wait: { type: 'integer' },
    wait_range: { type: 'string' },
  },
} as const;
const party = {
  phone: { type: 'string', description: 'E.164, e.g. +14155550123' },
  party_size: { type: 'integer', minimum: 1 },
  name: { type: 'string', maxLength: 100 },
  party_notes: { type: 'string', maxLength: 500 },
} as const;
/** Typed for the document; the service checks the values (400 VALIDATION_ERROR, or the 422 codes of docs/contract/waitlist.md §4.2). */
export const joinBody = {
  type: 'object',
  required: ['phone', 'party_size', 'name'],
  properties: {
    ...party,
    seating_area_preference: { type: 'string', maxLength: 40 },
    idempotency_token: { type: 'string', maxLength: 128 },
  },
} as const;
export const onMyWayBody = {
  type: 'object',
  required: ['phone', 'party_size', 'name', 'arrival_range_min', 'arrival_range_max'],
  properties: {
    ...party,
    arrival_range_min: { type: 'integer', minimum: 0, maximum: 30 },
    arrival_range_max: { type: 'integer', minimum: 0, maximum: 30 },
  },
} as const;
const unixSeconds = { type: ['integer', 'null'], description: 'Unix seconds' } as const;

/** A visit as the operator's routes answer it: a walk-in has no seating preference or notes (null). */
export function operatorVisitSchema() {
  return {
    ...visitSchema,
    properties: {
      ...visitSchema.properties,
      seating_area_preference: { type: ['string', 'null'] },
      party_notes: { type: ['string', 'null'] },
    },
  } as const;
}
export const visitSchema = {
  type: 'object',
  required: ['visit_id', 'business_id', 'visit_type', 'state', 'party_size', 'name'],
  properties: {
    visit_id: { type: 'string' },
    business_id: { type: 'string' },
    visit_type: { type: 'string', enum: ['WAITLIST', 'ON_MY_WAY'] },
    state: { type: 'string', enum: ['WAITING', 'NOTIFIED', 'ON_MY_WAY', 'SEATED', 'CANCELED', 'NO_SHOW', 'EXPIRED'] },
    party_size: { type: 'integer' },
    name: { type: 'string' },
    phone: { type: ['string', 'null'] },
    seating_area_preference: { type: 'string' },
    party_notes: { type: 'string' },
    queue_time: unixSeconds,
    arrive_by_time: unixSeconds,
    expected_seating_time_min: unixSeconds,
    expected_seating_time_max: unixSeconds,
    parties_ahead: { type: 'integer' },
    arrival_range_min: { type: ['integer', 'null'] },
    arrival_range_max: { type: ['integer', 'null'] },
    arrived_time: unixSeconds,
    notified_time: unixSeconds,
    seated_time: unixSeconds,
    canceled_time: unixSeconds,
    no_show_time: unixSeconds,
    expired_time: unixSeconds,
  },
} as const;

/** A restaurant's waitlist as the operator's routes answer it: its configuration and its switch. */
export const configAnswer = {
  type: 'object',
  required: ['business_id', 'manual_state', 'closed_reason', 'max_party_size', 'pace'],
  properties: {
    business_id: { type: 'string' },
    manual_state: { type: 'string', description: 'OPEN (follows its hours) or CLOSED' },
    closed_reason: { type: ['string', 'null'] },
    ...waitlistConfigSchema.properties,
  },
} as const;
