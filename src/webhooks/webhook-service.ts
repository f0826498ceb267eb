import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { verificationFailure } from './verification.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Clock } from '../platform/clock.js';
import { toIso, toIsoOffset } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database, DbOrTx, Tx } from '../platform/db/database.js';
import { recordEvent, type RelayedEvent } from '../platform/events.js';
import { eventsCausedBy, messageIdOf, readDeliveries, readDelivery, type DeliveryFilter } from './delivery-reads.js';
import { apiError } from '../platform/errors.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import { newId } from '../platform/ids.js';
import { checkWebhookUrl, guardedLookup, type AddressPolicy } from './address-guard.js';
import { newWebhookSecret } from './signing.js';
import { ingestionUpdate, licenseUpdate, type LicenseInput, type WebhookUpdate } from './operator-events.js';
export { DELIVERY_STATUSES } from './webhook-tables.js';
import { defaultEventTypes, envelopeTimeStyle, webhookEventTypes } from './webhook-tables.js';
import { WebhookStore, type EndpointRow } from './webhook-store.js';
import { isOneOf, storedStrings } from '../platform/query.js';
import { testUpdate } from './test-events.js';

const ROTATION_GRACE_MS = 24 * 3600_000;

/** Who may hear of a business's events; supplied by the subscriptions and partners families. */
export interface WebhookAudience {
  /**
   * Partners to hear of a business's event of this type: those with a WEBHOOK subscription to the
   * business that are still linked to it, and for lead events those with a live lead webhook
   * subscription covering it.
   */
  receiversOf(db: DbOrTx, businessId: string, eventType: string): Promise<string[]>;
  /** Of these partners, the active ones with the webhooks interface enabled. */
  mayReceive(db: DbOrTx, partnerIds: string[]): Promise<Set<string>>;
  /** Throws NOT_FOUND for an unknown partner. */
  requirePartner(partnerId: string): Promise<void>;
}

function endpointView(e: EndpointRow) {
  return {
    partner_id: e.partner_id,
    url: e.url,
    client_id: e.client_id,
    event_types: storedStrings(e.event_types),
    status: e.status,
    status_reason: e.status_reason,
    verified_at: e.verified_at === null ? null : toIso(e.verified_at),
    secret: e.secret,
    previous_secret_valid_until: e.previous_secret_until === null ? null : toIso(e.previous_secret_until),
    duplicate_and_reorder: e.duplicate_and_reorder === 1,
  };
}

/** Naive ISO time with microseconds, as review and license webhooks write it (docs/contract/webhooks.md §6.2). */
function naiveMicros(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000`;
}

/**
 * Webhook endpoints (registered and verified by the operator), the events that become messages,
 * and the operator's view of deliveries. Sending is the deliverer's job.
 */
export class WebhookService {
  /** Verification requests connect only to addresses the policy allows, checked at connection time. */
  private readonly verifier: Agent;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: Config['webhooks'],
    private readonly policy: AddressPolicy,
    private readonly audience: WebhookAudience,
    private readonly businesses: BusinessDirectory,
    /** Nudges the deliverer after redeliveries are queued. */
    private readonly wake: () => void = () => {},
    /** Nudges the relay after an event is committed. */
    private readonly eventsCommitted: () => void = () => {},
  ) {
    this.verifier = new Agent({ connect: { timeout: config.timeoutMs, lookup: guardedLookup(policy) }, pipelining: 0 });
  }

  private store(db: DbOrTx = this.database.db) {
    return new WebhookStore(db);
  }

  async close(): Promise<void> {
    await this.verifier.close();
  }

  private async endpointRow(partnerId: string) {
    return this.store().endpoint(partnerId);
  }

  /** The partner's endpoint, or undefined when it registered none. */
  async endpointOf(partnerId: string) {
    const row = await this.endpointRow(partnerId);
    return row && endpointView(row);
  }

  async getEndpoint(partnerId: string) {
    const row = await this.endpointRow(partnerId);
    if (!row) throw apiError('NOT_FOUND', `No webhook endpoint for partner ${partnerId}`);
    return endpointView(row);
  }

  /**
   * Registers or changes a partner's endpoint (the operator's API and the partner's portal alike);
   * a new URL must be verified again. Without a client_id the one before stays, else the partner id.
   */
  async setEndpoint(partnerId: string, input: { url: string; client_id?: string; event_types?: readonly string[] }) {
    await this.audience.requirePartner(partnerId);
    const refused = await checkWebhookUrl(input.url, this.policy);
    if (refused) throw apiError('VALIDATION_ERROR', `url refused: ${refused}`, { field: 'url' });
    const types = input.event_types ?? [...defaultEventTypes];
    for (const t of types) {
      if (!isOneOf(webhookEventTypes, t)) throw apiError('VALIDATION_ERROR', `Unknown event type ${t}`, { field: 'event_types' });
    }
    const now = this.clock.now();
    const existing = await this.endpointRow(partnerId);
    if (!existing) {
      await this.database.transact((trx) =>
        this.store(trx).insertEndpoint({
          partner_id: partnerId,
          url: input.url,
          client_id: input.client_id ?? partnerId,
          event_types: JSON.stringify(types),
          status: 'unverified',
          status_reason: 'not verified yet',
          verified_at: null,
          secret: newWebhookSecret(),
          previous_secret: null,
          previous_secret_until: null,
          created_at: now,
          updated_at: now,
        }),
      );
    } else {
      const urlChanged = existing.url !== input.url;
      const was = { url: existing.url, client_id: existing.client_id, event_types: storedStrings(existing.event_types) };
      noteAudit({ before: was, after: { url: input.url, client_id: input.client_id ?? existing.client_id, event_types: types } });
      await this.database.transact((trx) =>
        this.store(trx).updateEndpoint(partnerId, {
          url: input.url,
          client_id: input.client_id ?? existing.client_id,
          event_types: JSON.stringify(types),
          updated_at: now,
          ...(urlChanged ? { status: 'unverified', status_reason: 'URL changed; verify again', verified_at: null } : {}),
        }),
      );
    }
    return this.getEndpoint(partnerId);
  }

  async removeEndpoint(partnerId: string): Promise<void> {
    // Refused inside the transaction: a change that did not happen leaves no audit record.
    await this.database.transact(async (trx) => {
      if (!(await this.store(trx).deleteEndpoint(partnerId))) throw apiError('NOT_FOUND', `No webhook endpoint for partner ${partnerId}`);
    });
  }

  /** Sandbox: send every message twice, each after a random delay, to try a receiver's de-duplication and ordering. */
  async setDuplicateAndReorder(partnerId: string, on: boolean) {
    // Loopback receivers are allowed exactly in the sandbox (services.ts): the same switch.
    if (!this.policy.allowLoopback)
      throw apiError('AUTHORIZATION_ERROR', 'Duplicated and reordered deliveries are for the sandbox; this server runs in production.');
    const row = await this.endpointRow(partnerId);
    if (!row) throw apiError('NOT_FOUND', `No webhook endpoint for partner ${partnerId}`);
    await this.database.transact((trx) =>
      this.store(trx).updateEndpoint(partnerId, { duplicate_and_reorder: on ? 1 : 0, updated_at: this.clock.now() }),
    );
    return this.getEndpoint(partnerId);
  }

  /** New signing secret; messages carry old and new signatures for 24 hours. */
  async rotateSecret(partnerId: string) {
    const row = await this.endpointRow(partnerId);
    if (!row) throw apiError('NOT_FOUND', `No webhook endpoint for partner ${partnerId}`);
    const now = this.clock.now();
    await this.database.transact((trx) =>
      this.store(trx).updateEndpoint(partnerId, {
        secret: newWebhookSecret(),
        previous_secret: row.secret,
        previous_secret_until: now + ROTATION_GRACE_MS,
        updated_at: now,
      }),
    );
    return this.getEndpoint(partnerId);
  }

  /**
   * Manual verification (spec Events 2): GET <url>?verification=<random>; verified only when the
   * answer is a JSON object whose single key `verification` echoes the string. No retry.
   */
  async verify(partnerId: string) {
    const row = await this.endpointRow(partnerId);
    if (!row) throw apiError('NOT_FOUND', `No webhook endpoint for partner ${partnerId}`);
    const challenge = randomBytes(24)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 24);
    const failure = await verificationFailure(row.url, challenge, {
      policy: this.policy,
      agent: this.verifier,
      timeoutMs: this.config.timeoutMs,
    });
    const now = this.clock.now();
    await this.database.transact((trx) =>
      this.store(trx).updateEndpoint(
        partnerId,
        failure
          ? { status: 'failed', status_reason: failure, verified_at: null, updated_at: now }
          : { status: 'verified', status_reason: null, verified_at: now, updated_at: now },
      ),
    );
    return this.getEndpoint(partnerId);
  }

  /**
   * The relay's consumer: each event becomes one message and one delivery per receiving partner,
   * in the relay's transaction. An event for one partner (a reservation's owner) goes to that
   * partner; any other goes to the partners subscribed (WEBHOOK) and linked to its business.
   * Either way only to a verified endpoint that receives the event's type. The message id is
   * the event's, so a second relay of the same event could not send a different message.
   */
  async fanOut(trx: Tx, events: RelayedEvent[]): Promise<void> {
    for (const event of events) {
      const addressed =
        event.partner_id !== null ? [event.partner_id] : await this.audience.receiversOf(trx, event.business_id, event.type);
      const allowed = await this.audience.mayReceive(trx, addressed);
      const candidates = addressed.filter((id) => allowed.has(id));
      const store = this.store(trx);
      const endpoints = await store.verifiedEndpointsOf(candidates);
      const targets = endpoints.filter((e) => storedStrings(e.event_types).includes(event.type));
      if (targets.length === 0) continue;
      const messageId = messageIdOf(event.id);
      const time = envelopeTimeStyle(event.type) === 'offset' ? toIsoOffset(event.occurred_at) : naiveMicros(event.occurred_at);
      // The payload is embedded as written, so the body is the same whenever it is built.
      const body = `{"time":${JSON.stringify(time)},"object":"business","data":{"id":${JSON.stringify(event.business_id)},"updates":[${event.payload}]}}`;
      await store.insertMessage(
        { id: messageId, business_id: event.business_id, event_type: event.type, body, occurred_at: event.occurred_at },
        targets.flatMap((t) => {
          const delivery = {
            message_id: messageId,
            partner_id: t.partner_id,
            status: 'pending' as const,
            attempts: 0,
            next_attempt_at: this.clock.now(),
            // Retried for 24 hours after the event, not after the relay.
            give_up_at: event.occurred_at + this.config.retryWindowHours * 3600_000,
            locked_by: null,
            locked_until: null,
            last_status_code: null,
            last_error: null,
            created_at: event.occurred_at,
            finished_at: null,
          };
          if (t.duplicate_and_reorder !== 1) return [{ ...delivery, id: newId() }];
          // Sandbox switch: the same message twice, each sent after its own random delay of up to 2 s,
          // so the receiver sees duplicates and messages out of order (docs/request-log.md "Webhooks").
          return [0, 1].map(() => ({
            ...delivery,
            id: newId(),
            next_attempt_at: delivery.next_attempt_at + Math.floor(Math.random() * 2000),
          }));
        }),
      );
    }
  }

  /**
   * Operator emission (license verifications, ingestion-job updates) for a business: an event in
   * the outbox. Lead events are the leads family's (they write the lead behind them).
   */
  async emitForBusiness(businessIdOrAlias: string, update: WebhookUpdate) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const eventId = await this.database.transact((trx) =>
      recordEvent(trx, this.database.dialect, { type: update.event_type, businessId: business.id, payload: update, at: this.clock.now() }),
    );
    this.eventsCommitted();
    return { event_id: eventId, message_id: messageIdOf(eventId) };
  }

  /**
   * A test event for one partner (its portal): a realistic update of `type`, marked `"test": true`,
   * addressed to that partner only, for `businessId` or a business linked to it. It travels the
   * event path like any other, so it arrives only where a real one would (a verified endpoint with
   * the type enabled).
   */
  async sendTestEvent(partnerId: string, type: unknown, businessId: unknown) {
    if (!isOneOf(webhookEventTypes, type))
      throw apiError('VALIDATION_ERROR', `event_type must be one of ${webhookEventTypes.join(', ')}`, { field: 'event_type' });
    const endpoint = await this.endpointRow(partnerId);
    if (!endpoint) throw apiError('NOT_FOUND', 'No webhook endpoint: set one first.');
    if (!storedStrings(endpoint.event_types).includes(type))
      throw apiError('VALIDATION_ERROR', `Your endpoint does not receive ${type}; enable the type first.`, { field: 'event_type' });
    const business =
      typeof businessId === 'string' && businessId !== '' ? (await this.businesses.requireRef(businessId)).id : 'TEST_BUSINESS_ID';
    const now = this.clock.now();
    const eventId = await this.database.transact((trx) =>
      recordEvent(trx, this.database.dialect, { type, businessId: business, partnerId, payload: testUpdate(type, business, now), at: now }),
    );
    this.eventsCommitted();
    return { event_id: eventId, message_id: messageIdOf(eventId) };
  }

  emitLicense(businessIdOrAlias: string, input: LicenseInput) {
    return this.emitForBusiness(businessIdOrAlias, licenseUpdate(input));
  }

  emitIngestion(businessIdOrAlias: string, input: { job_id: string; status: string }) {
    return this.emitForBusiness(businessIdOrAlias, ingestionUpdate(input));
  }

  /** The events a partner request caused, with their deliveries (docs/request-log.md "Links"). */
  causedBy(requestId: string, partnerId?: string) {
    return eventsCausedBy(this.database.db, this.store(), this.businesses, requestId, partnerId);
  }

  deliveries(filter: DeliveryFilter) {
    return readDeliveries(this.store(), this.businesses, filter);
  }

  /** A message (by its `webhook-id`) and how many deliveries it has, for the operator's "find anything". */
  async message(messageId: string) {
    const found = await this.store().messageSummary(messageId);
    return found && { message_id: found.id, event_type: found.event_type, business_id: found.business_id, deliveries: found.deliveries };
  }

  /** One delivery with its payload and where it goes; another partner's (given `partnerId`) is not found. */
  async delivery(deliveryId: string, partnerId?: string) {
    const found = await readDelivery(this.store(), this.businesses, deliveryId, partnerId);
    if (!found) throw apiError('NOT_FOUND', `No such delivery: ${deliveryId}`);
    return found;
  }

  /** Delivery attempts per minute over the last `minutes` minutes (pbs clock), oldest first, every minute listed: answered 2xx, or not. */
  async attemptsPerMinute(minutes: number) {
    const thisMinute = Math.floor(this.clock.now() / 60_000);
    const first = thisMinute - minutes + 1;
    const rows = await this.store().attemptsPerMinute(first * 60_000);
    const byMinute = new Map(rows.map((r) => [r.minute, r]));
    return {
      minutes: Array.from({ length: minutes }, (_, i) => {
        const row = byMinute.get(first + i);
        return { minute: toIso((first + i) * 60_000), succeeded: row?.succeeded ?? 0, failed: row?.failed ?? 0 };
      }),
    };
  }

  /** Sends a message again: the delivery starts over with a fresh 24-hour window. */
  async redeliver(deliveryId: string, partnerId?: string) {
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const outcome = await this.store(trx).redeliver(deliveryId, now, now + this.config.retryWindowHours * 3600_000, partnerId);
      if (outcome === 'pending') throw apiError('CONFLICT', 'The delivery is still pending');
      if (outcome === 'unknown') throw apiError('NOT_FOUND', 'Delivery not found');
    });
    this.wake();
    return { redelivered: 1 };
  }

  /** Every failed delivery of messages created between two instants (optionally for one partner). */
  async redeliverFailed(from: number, to: number, partnerId?: string) {
    const now = this.clock.now();
    const redelivered = await this.database.transact((trx) =>
      this.store(trx).redeliverFailed(from, to, partnerId, now, now + this.config.retryWindowHours * 3600_000),
    );
    this.wake();
    return { redelivered };
  }
}
