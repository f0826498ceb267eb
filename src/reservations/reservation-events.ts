import type { DomainEvent } from '../platform/events.js';
import { newId } from '../platform/ids.js';

/**
 * What partners hear of their reservations (opt-in webhook types): made, canceled by the guest
 * (through the partner's API or on the confirmation page) and canceled by the restaurant. Each
 * event is for the partner that made the reservation only; updates carry no guest details
 * beyond the partner's own `unique_id`, and an `event_id` for de-duplication.
 */
export const RESERVATION_EVENT_TYPES = {
  created: 'RESERVATION_CREATED_EVENT',
  canceledByGuest: 'RESERVATION_CANCELED_BY_GUEST_EVENT',
  canceledByRestaurant: 'RESERVATION_CANCELED_BY_RESTAURANT_EVENT',
} as const;

export interface ReservationFactsForEvent {
  id: string;
  business_id: string;
  partner_id: string | null;
  date: string;
  time: string;
  covers: number;
  unique_id: string;
}

export function reservationCreated(r: ReservationFactsForEvent & { partner_id: string }, at: number): DomainEvent {
  return reservationEvent(RESERVATION_EVENT_TYPES.created, r, r.partner_id, at, { status: 'ACTIVE' });
}

/** A reservation's event, addressed to the partner that made it: its type, the booking's facts, and `extra`. */
function reservationEvent(
  type: string,
  r: ReservationFactsForEvent,
  partnerId: string,
  at: number,
  extra: Record<string, unknown>,
): DomainEvent {
  return {
    type,
    businessId: r.business_id,
    partnerId,
    at,
    payload: {
      event_type: type,
      event_id: newId(),
      reservation_id: r.id,
      date: r.date,
      time: r.time,
      covers: r.covers,
      unique_id: r.unique_id,
      ...extra,
    },
  };
}

/** Where a cancellation came from. */
export type CancelSource = 'PARTNER_API' | 'CONFIRMATION_PAGE' | 'RESTAURANT';

/** Undefined for a reservation no partner made: such an event has nobody to go to. */
export function reservationCanceled(r: ReservationFactsForEvent, source: CancelSource, at: number): DomainEvent | undefined {
  if (r.partner_id === null) return undefined;
  const type = source === 'RESTAURANT' ? RESERVATION_EVENT_TYPES.canceledByRestaurant : RESERVATION_EVENT_TYPES.canceledByGuest;
  return reservationEvent(type, r, r.partner_id, at, { status: 'CANCELED', source });
}
