import type { BusinessDirectory } from '../businesses/business-service.js';
import { toIso } from '../platform/clock.js';
import type { DbOrTx } from '../platform/db/database.js';
import { eventsOfRequest } from '../platform/events.js';
import type { DeliveryStatus } from './webhook-tables.js';
import type { WebhookStore } from './webhook-store.js';

/** A message's id (the `webhook-id` header) is its event's: a receiver de-duplicates by it. */
export const messageIdOf = (eventId: string) => `msg_${eventId}`;

export interface DeliveryFilter {
  partnerId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  messageIds?: string[];
  ids?: string[];
  limit?: number;
}

/** Deliveries, newest first, each with its business's name and every attempt (the operator's and the portal's listings). */
export async function readDeliveries(store: WebhookStore, businesses: BusinessDirectory, filter: DeliveryFilter) {
  const { rows, attempts } = await store.deliveries({ ...filter, limit: filter.limit ?? 50 });
  // The business's name beside its id: the portal has no other way to name it.
  const names = await businesses.records([...new Set(rows.map((r) => r.business_id))]);
  return rows.map((r) => ({
    ...r,
    business_name: names.get(r.business_id)?.name ?? null,
    next_attempt_at: toIso(r.next_attempt_at),
    give_up_at: toIso(r.give_up_at),
    created_at: toIso(r.created_at),
    finished_at: r.finished_at === null ? null : toIso(r.finished_at),
    attempts_log: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        at: toIso(a.attempted_at),
        status_code: a.status_code,
        latency_ms: a.latency_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
      })),
  }));
}

/**
 * One delivery whole (only `partnerId`'s when given: another's is not found): the listing's view,
 * the message as it is sent, and the URL it goes to now (the partner's endpoint, null when it has
 * none any more).
 */
export async function readDelivery(store: WebhookStore, businesses: BusinessDirectory, deliveryId: string, partnerId?: string) {
  const [delivery] = await readDeliveries(store, businesses, { ids: [deliveryId], partnerId, limit: 1 });
  if (!delivery) return undefined;
  const body = await store.messageBody(delivery.message_id);
  const payload: unknown = body === undefined ? null : JSON.parse(body);
  const endpoint = await store.endpoint(delivery.partner_id);
  return { ...delivery, payload, endpoint_url: endpoint?.url ?? null };
}

/**
 * The events a partner request caused, each with its message id and its deliveries (only
 * `partnerId`'s when given: a partner sees no other receiver of the same event).
 */
export async function eventsCausedBy(
  db: DbOrTx,
  store: WebhookStore,
  businesses: BusinessDirectory,
  requestId: string,
  partnerId?: string,
) {
  const events = await eventsOfRequest(db, requestId);
  if (events.length === 0) return [];
  const deliveries = await readDeliveries(store, businesses, { partnerId, messageIds: events.map((e) => messageIdOf(e.id)), limit: 500 });
  return events.map((e) => ({
    event_id: e.id,
    event_type: e.type,
    business_id: e.business_id,
    occurred_at: toIso(e.occurred_at),
    message_id: messageIdOf(e.id),
    deliveries: deliveries.filter((d) => d.message_id === messageIdOf(e.id)),
  }));
}
