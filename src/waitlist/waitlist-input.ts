import { apiError } from '../platform/errors.js';
import { MAX_PARTY_SIZE, type WaitlistConfig } from './waitlist-rules.js';

/**
 * The waitlist requests' form (400 VALIDATION_ERROR naming the field; docs/contract/waitlist.md §4.2) and the one
 * party-size rule against a restaurant's configuration. The rules of the line are in
 * waitlist-rules.ts.
 */

export const E164 = /^\+[1-9][0-9]{6,14}$/;
/** Size caps of a visit's text (the documented schema's maxLength); the party's is MAX_PARTY_SIZE. */
const MAX_NAME = 100;
const MAX_NOTES = 500;
/** The latest arrival an on-my-way visit may announce, in minutes (docs/contract/waitlist.md §4.3). */
const MAX_ARRIVAL_MINUTES = 30;

/** Integer Unix seconds, the waitlist's time format (docs/contract/waitlist.md §4.3). */
export const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function invalid(field: string, message: string): never {
  throw apiError('VALIDATION_ERROR', message, { field });
}

export interface PartyInput {
  phone: string;
  party_size: number;
  name: string;
  party_notes: string;
}

/** A party size: a whole number from 1 to MAX_PARTY_SIZE. */
export function partySize(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    return invalid('party_size', 'party_size must be a whole number of at least 1');
  if (value > MAX_PARTY_SIZE) invalid('party_size', `party_size is at most ${MAX_PARTY_SIZE}`);
  return value;
}

/** Checks the fields every partner's visit request shares (400 when malformed; docs/contract/waitlist.md §4.2). */
export function party(body: Record<string, unknown>): PartyInput {
  const { phone, party_size, name } = body;
  const notes = body.party_notes ?? '';
  if (typeof phone !== 'string' || !E164.test(phone)) return invalid('phone', 'phone must be an E.164 number such as +14155550123');
  // The size's form before the name, its cap after: the order of the original's messages.
  if (typeof party_size !== 'number' || !Number.isInteger(party_size) || party_size < 1)
    invalid('party_size', 'party_size must be a whole number of at least 1');
  if (typeof name !== 'string' || name.trim() === '') return invalid('name', 'name is required');
  if (name.length > MAX_NAME) invalid('name', `name is longer than ${MAX_NAME} characters`);
  const size = partySize(party_size);
  if (typeof notes !== 'string') return invalid('party_notes', 'party_notes must be text');
  if (notes.length > MAX_NOTES) invalid('party_notes', `party_notes is longer than ${MAX_NOTES} characters`);
  return { phone, party_size: size, name: name.trim(), party_notes: notes };
}

/** A join's own fields beside the party: the seating preference and the partner's idempotency token. */
export function joinFields(body: Record<string, unknown>): { preference: string; token: string | undefined } {
  const preference = body.seating_area_preference ?? '';
  if (typeof preference !== 'string') return invalid('seating_area_preference', 'seating_area_preference must be text');
  const token = body.idempotency_token;
  if (token !== undefined && (typeof token !== 'string' || token === '' || token.length > 128))
    return invalid('idempotency_token', 'idempotency_token must be 1 to 128 characters');
  return { preference, token };
}

/** An on-my-way visit's arrival window: whole minutes, 0 ≤ min ≤ max ≤ 30 (INVALID_ETA otherwise). */
export function arrivalRange(body: Record<string, unknown>): { min: number; max: number } {
  const min = body.arrival_range_min;
  const max = body.arrival_range_max;
  if (min === undefined) invalid('arrival_range_min', 'arrival_range_min is required');
  if (max === undefined) invalid('arrival_range_max', 'arrival_range_max is required');
  if (
    typeof min !== 'number' ||
    typeof max !== 'number' ||
    !Number.isInteger(min) ||
    !Number.isInteger(max) ||
    min < 0 ||
    max < min ||
    max > MAX_ARRIVAL_MINUTES
  ) {
    throw apiError('INVALID_ETA', `arrival_range_min and arrival_range_max are whole minutes, 0 ≤ min ≤ max ≤ ${MAX_ARRIVAL_MINUTES}.`);
  }
  return { min, max };
}

/** A walk-in at the door (the restaurant side): a party size, and a phone and name if given. */
export function walkIn(body: Record<string, unknown>): PartyInput & { hasPhone: boolean } {
  const size = partySize(body.party_size);
  const phone = body.phone;
  if (phone !== undefined && (typeof phone !== 'string' || !E164.test(phone))) return invalid('phone', 'phone must be an E.164 number');
  const name = typeof body.name === 'string' && body.name.trim() ? body.name.trim().slice(0, MAX_NAME) : 'Walk-in';
  return { phone: phone ?? '', hasPhone: phone !== undefined, party_size: size, name, party_notes: '' };
}

/** PARTY_SIZE_TOO_LARGE: the restaurant's own limit (its configuration), below the schema's cap. */
export function refuseTooLarge(input: PartyInput, config: WaitlistConfig): void {
  if (input.party_size > config.max_party_size)
    throw apiError('PARTY_SIZE_TOO_LARGE', `This waitlist takes parties of up to ${config.max_party_size}.`);
}
