import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { isOneOf } from '../platform/query.js';
import { isRecord } from '../platform/values.js';
import type { LeadCaller } from './lead-api.js';
import { LEAD_EVENT_TYPES } from './lead-service.js';
import { SubscriptionStore } from './subscription-store.js';

/** A self-serve subscription lasts 14 days (the original's), then must be made again. */
export const LEAD_WEBHOOK_LIFETIME_MS = 14 * 86_400_000;
/** Most businesses one subscription may list (the original's parameter table). */
export const MAX_RESTRICTED_BUSINESSES = 50;
/** Most live subscriptions of one partner: one per business user, so a market's worth. */
export const MAX_LIVE_SUBSCRIPTIONS = 10_000;
/** The one `webhook_type` there is. */
const LEADS_EVENT = 'leads_event';

/** What self-serve subscriptions ask of other families. */
export interface LeadWebhookAccess {
  /** The businesses a business user manages now (owners). */
  managedBusinesses(userId: string): Promise<string[]>;
  /** The business users who manage a business, in the relay's transaction (owners). */
  managersOf(db: DbOrTx, businessId: string): Promise<string[]>;
  /** A business's id from an id or alias; undefined when none (businesses). */
  businessIdOf(idOrAlias: string): Promise<string | undefined>;
  /** The URL of the partner's webhook endpoint, if it registered one (webhooks). */
  endpointUrl(partnerId: string): Promise<string | undefined>;
}

/**
 * Self-serve lead webhooks (docs/contract/leads.md §12.12): a partner, acting for a business user,
 * subscribes to the lead events of the businesses that user manages (all, or a list). pbs sends
 * every webhook of a partner to its one endpoint, signed, retried and logged like any other; a
 * subscription adds the businesses whose lead events go there, without business links.
 */
export class LeadWebhooks {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly access: LeadWebhookAccess,
  ) {}

  private store(db: DbOrTx = this.database.db) {
    return new SubscriptionStore(db);
  }

  /** `POST /v3/webhooks`. */
  async subscribe(caller: LeadCaller, body: unknown) {
    const fields = isRecord(body) ? body : {};
    const url = fields.webhook_url;
    if (url === undefined || url === null)
      throw apiError('VALIDATION_ERROR', "'webhook_url' is a required property", { field: 'webhook_url' });
    if (typeof url !== 'string' || !isHttpUrl(url))
      throw apiError('VALIDATION_ERROR', "'webhook_url' is not a 'uri'", { field: 'webhook_url' });
    if (fields.webhook_type === undefined || fields.webhook_type === null)
      throw apiError('VALIDATION_ERROR', "'webhook_type' is a required property", { field: 'webhook_type' });
    if (fields.webhook_type !== LEADS_EVENT)
      throw apiError('VALIDATION_ERROR', `'webhook_type' is not one of ['${LEADS_EVENT}']`, { field: 'webhook_type' });
    const restricted = await this.restrictedBusinesses(caller, fields.restricted_business_ids);
    if (!restricted && (await this.access.managedBusinesses(caller.userId)).length === 0)
      throw apiError('VALIDATION_ERROR', 'The business user manages no business: there is nothing to subscribe to', {
        field: 'restricted_business_ids',
      });
    const endpoint = await this.access.endpointUrl(caller.partnerId);
    if (endpoint !== url)
      throw apiError(
        'VALIDATION_ERROR',
        endpoint === undefined
          ? 'Register your webhook endpoint first (the portal’s Webhooks page): pbs sends a partner’s webhooks to its one endpoint'
          : `webhook_url must be your registered webhook endpoint (${endpoint}): pbs sends a partner’s webhooks to its one endpoint`,
        { field: 'webhook_url' },
      );
    const now = this.clock.now();
    const id = newId();
    const expires = now + LEAD_WEBHOOK_LIFETIME_MS;
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      if (await store.live(caller.partnerId, caller.userId, now))
        throw apiError(
          'CONFLICT',
          'A subscription for this business user is live: delete it (DELETE /v3/webhooks/{webhook_id}) to make a new one',
        );
      if ((await store.countLive(caller.partnerId, now)) >= MAX_LIVE_SUBSCRIPTIONS)
        throw apiError('QUOTA_EXCEEDED', `A partner holds at most ${MAX_LIVE_SUBSCRIPTIONS} live lead webhook subscriptions`);
      const subscription = {
        id,
        partner_id: caller.partnerId,
        user_id: caller.userId,
        webhook_url: url,
        restricted: restricted ? 1 : 0,
        created_at: now,
        expires_at: expires,
        deleted_at: null,
      };
      await store.insert(subscription, restricted ?? []);
    });
    return { webhook_id: id, expiration_date: toIsoOffset(expires) };
  }

  /** `DELETE /v3/webhooks/{webhook_id}`: another partner's, or a deleted one, is 404. */
  async unsubscribe(caller: LeadCaller, webhookId: string) {
    const subscription = await this.store().get(webhookId);
    if (!subscription || subscription.partner_id !== caller.partnerId || subscription.deleted_at !== null)
      throw apiError('NOT_FOUND', `Webhook subscription ${webhookId} not found`);
    await this.store().markDeleted(subscription.id, this.clock.now());
    return {};
  }

  /** Partners whose live subscriptions cover a business's lead events (the webhook fan-out asks, in its transaction). */
  async subscribersOf(db: DbOrTx, businessId: string, eventType: string): Promise<string[]> {
    if (!isOneOf(LEAD_EVENT_TYPES, eventType)) return [];
    return this.store(db).partnersCovering(businessId, await this.access.managersOf(db, businessId), this.clock.now());
  }

  /** The listed businesses (ids), each one the user manages; undefined when no list was sent. */
  private async restrictedBusinesses(caller: LeadCaller, value: unknown): Promise<string[] | undefined> {
    if (value === undefined || value === null) return undefined;
    const field = 'restricted_business_ids';
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string'))
      throw apiError('VALIDATION_ERROR', "'restricted_business_ids' is not of type 'array' of strings", { field });
    if (value.length === 0) throw apiError('VALIDATION_ERROR', 'restricted_business_ids names no business', { field });
    if (value.length > MAX_RESTRICTED_BUSINESSES)
      throw apiError('VALIDATION_ERROR', `restricted_business_ids names at most ${MAX_RESTRICTED_BUSINESSES} businesses`, { field });
    const managed = new Set(await this.access.managedBusinesses(caller.userId));
    const ids: string[] = [];
    for (const given of new Set(value)) {
      const id = await this.access.businessIdOf(given);
      if (id === undefined || !managed.has(id))
        throw apiError('VALIDATION_ERROR', `Invalid business id ${given.slice(0, 64)}: not a business this business user manages`, {
          field,
        });
      ids.push(id);
    }
    return [...new Set(ids)];
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && value.length <= 2000;
  } catch {
    return false;
  }
}
