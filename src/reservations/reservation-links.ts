import type { BusinessRef } from '../businesses/business-store.js';
import { formatHHMM } from '../platform/local-time.js';
import { SLOT_MINUTES } from './inventory.js';

/**
 * The links reservations answer with (docs/contract/reservations.md §3): the confirmation page, the reserve page of a
 * slot that needs a card, and the checkout of a hold. pbs serves all three (page-routes.ts).
 */
export class ReservationLinks {
  constructor(private readonly publicUrl: string) {}

  confirmation(b: BusinessRef, id: string) {
    return `${this.publicUrl}/reservations/${encodeURIComponent(b.alias)}/confirmed/${id}?utm_medium=api_v3_reservations`;
  }

  /** An openings slot that needs a card: it links to the reserve page. */
  cardSlotJson(b: BusinessRef, date: string, slot: number, covers: number): string {
    const time = formatHHMM(slot * SLOT_MINUTES);
    return `{"time":"${time}","credit_card_required":true,"url":${JSON.stringify(this.reserve(b, date, time, covers))}}`;
  }

  reserve(b: BusinessRef, date: string, time: string, covers: number) {
    return `${this.publicUrl}/reservations/${encodeURIComponent(b.alias)}/reserve/${date}/${time.replace(':', '')}/${covers}/`;
  }

  checkout(b: BusinessRef, date: string, time: string, covers: number) {
    return `${this.publicUrl}/reservations/${encodeURIComponent(b.alias)}/checkout/${date}/${time.replace(':', '')}/${covers}`;
  }
}
