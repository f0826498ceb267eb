import type { BusinessDirectory } from '../businesses/business-service.js';
import type { BusinessLinks, PartnerInterface, Principal } from '../platform/auth/principal.js';
import { parseBusinessIdList } from '../platform/business-ids.js';
import { parsePage } from '../platform/paging.js';
import { isOneOf, single, storedStrings } from '../platform/query.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import type { Clock } from '../platform/clock.js';
import { toIsoOffset } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { defineTask, type TaskRunner } from '../platform/tasks/task-runner.js';
import { SubscriptionStore } from './subscription-store.js';
import { subscriptionTypes, type SubscriptionType } from './subscription-tables.js';
import { fromJson, isRecord, toJson } from '../platform/values.js';

/** Applies one subscription request (the v3 interface is asynchronous, docs/contract/subscriptions.md §5). */
export const APPLY_TASK = defineTask<{ request_id: string }>(
  'subscriptions.apply',
  { type: 'object', required: ['request_id'], additionalProperties: false, properties: { request_id: { type: 'string', minLength: 1 } } },
  { maxAttempts: 20 },
);

/** A partner may use a subscription type only with the interface behind it enabled. */
const interfaceOfType: Record<SubscriptionType, PartnerInterface> = {
  WEBHOOK: 'webhooks',
  LISTING_MANAGEMENT: 'listing_management',
  YELP_KNOWLEDGE: 'business_subscriptions',
};

/** Most business ids one request may name (docs/contract/subscriptions.md §5.2, §5.5, §9). */
export const MAX_IDS = { subscriptions: 1000, whitelist: 100, listingManagement: 500 } as const;

const businessIdList = (body: unknown, max: number) => parseBusinessIdList(body, 'business_ids', max);

/**
 * Business subscriptions (asynchronous, docs/contract/subscriptions.md §5), the replaced webhook allow-list and the
 * deprecated listing-management interface — all on one table, so every interface sees the same
 * subscriptions.
 */
export class SubscriptionService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly links: BusinessLinks,
    private readonly businesses: BusinessDirectory,
  ) {}

  private get db() {
    return this.database.db;
  }

  private store() {
    return new SubscriptionStore(this.db);
  }

  private requireType(principal: Principal, raw: unknown): SubscriptionType {
    const type = single(raw) ?? '';
    if (!isOneOf(subscriptionTypes, type)) {
      throw apiError('VALIDATION_ERROR', `subscription_type must be one of ${subscriptionTypes.join(', ')}`, {
        field: 'subscription_type',
      });
    }
    if (!principal.interfaces[interfaceOfType[type]]?.enabled) {
      throw apiError('PARTNER_ENDPOINT_DISABLED', `This client is not enabled for ${type} subscriptions.`);
    }
    return type;
  }

  private async page(partnerId: string, type: SubscriptionType, limit: number, offset: number) {
    const { total, rows } = await this.store().page(partnerId, type, limit, offset);
    return {
      total,
      limit,
      offset,
      subscriptions: rows.map((r) => ({ business_id: r.business_id, subscribed_at: toIsoOffset(r.subscribed_at) })),
    };
  }

  // ---- business subscriptions (v3) -----------------------------------------------------------

  async list(principal: Principal, query: Record<string, unknown>) {
    const type = this.requireType(principal, Array.isArray(query.subscription_type) ? query.subscription_type[0] : query.subscription_type);
    const { limit, offset } = parsePage(query, { defaultLimit: 100, minLimit: 0, maxLimit: 10_000 });
    const page = await this.page(principal.partnerId, type, limit, offset);
    return { total: page.total, limit, offset, subscription_type: type, subscriptions: page.subscriptions };
  }

  /** Records the request and its task in one transaction; the change itself happens in the task. */
  async request(
    principal: Principal,
    action: 'subscribe' | 'unsubscribe',
    body: unknown,
    write?: PartnerWrite,
  ): Promise<Record<string, never>> {
    const rawTypes = isRecord(body) ? body.subscription_types : undefined;
    if (!Array.isArray(rawTypes) || rawTypes.length === 0) {
      throw apiError('VALIDATION_ERROR', 'subscription_types must be a non-empty list', { field: 'subscription_types' });
    }
    const types = [...new Set(rawTypes.map((t) => this.requireType(principal, t)))];
    const businessIds = businessIdList(body, MAX_IDS.subscriptions);
    const now = this.clock.now();
    const id = newId();
    await this.database.transact(async (trx) => {
      await new SubscriptionStore(trx).insertRequest({
        id,
        partner_id: principal.partnerId,
        action,
        subscription_types: toJson(types),
        business_ids: JSON.stringify(businessIds),
        status: 'PROCESSING',
        skipped_business_ids: null,
        refused_business_ids: null,
        created_at: now,
        completed_at: null,
      });
      await this.tasks.enqueue(trx, APPLY_TASK, { request_id: id });
      await answerWithinChange(trx, write, 202, {});
    });
    return {};
  }

  /**
   * The task: applies one request. Unknown business ids are skipped, and ids of businesses not
   * linked to the partner are refused; both are recorded on the request, neither is fatal.
   */
  async apply(requestId: string): Promise<void> {
    const request = await this.store().findRequest(requestId);
    if (!request || request.status === 'COMPLETED') return;
    const ids = storedStrings(request.business_ids);
    const types = fromJson(request.subscription_types);
    const { resolved, unknown, unlinked } = await this.links.check(request.partner_id, ids);
    const refused = new Set(unlinked);
    const allowed = [...new Set(ids.filter((id) => !refused.has(id) && resolved.has(id)).map((id) => resolved.get(id)!))];
    await this.database.transact(async (trx) => {
      const store = new SubscriptionStore(trx);
      const now = this.clock.now();
      for (const type of types) {
        if (request.action === 'subscribe') await store.subscribe(request.partner_id, type, allowed, now);
        else await store.unsubscribe(request.partner_id, type, allowed);
      }
      await store.completeRequest(request.id, { skipped: unknown, refused: unlinked }, now);
    });
  }

  /** When a partner loses its link to a business, its subscriptions to it go too (same transaction). */
  async forget(trx: DbOrTx, partnerId: string, businessId: string): Promise<void> {
    await new SubscriptionStore(trx).forget(partnerId, businessId);
  }

  /** The partners with a WEBHOOK subscription to a business (the webhooks family fans out to them). */
  webhookSubscribers(db: DbOrTx, businessId: string): Promise<string[]> {
    return new SubscriptionStore(db).subscribersAmong('WEBHOOK', businessId);
  }

  async requests(partnerId: string, limit = 50) {
    return (await this.store().listRequests(partnerId, limit)).map((r) => ({
      id: r.id,
      action: r.action,
      subscription_types: storedStrings(r.subscription_types),
      business_ids: storedStrings(r.business_ids),
      status: r.status,
      skipped_business_ids: r.skipped_business_ids ? storedStrings(r.skipped_business_ids) : [],
      refused_business_ids: r.refused_business_ids ? storedStrings(r.refused_business_ids) : [],
      created_at: toIsoOffset(r.created_at),
      completed_at: r.completed_at === null ? null : toIsoOffset(r.completed_at),
    }));
  }

  // ---- synchronous interfaces: webhook allow-list and listing management ----------------------

  /** Applies a change at once; `answer` builds the reply inside the transaction, stored with it for `write`. */
  private async changeNow<T>(
    partnerId: string,
    type: SubscriptionType,
    action: 'subscribe' | 'unsubscribe',
    ids: string[],
    write: PartnerWrite | undefined,
    answer: (store: SubscriptionStore) => Promise<T>,
  ): Promise<T> {
    return this.database.transact(async (trx) => {
      const resolved = await this.businesses.resolveIds(ids, trx);
      const found = [...new Set(ids.map((id) => resolved.get(id)).filter((id): id is string => !!id))];
      const store = new SubscriptionStore(trx);
      if (action === 'subscribe') await store.subscribe(partnerId, type, found, this.clock.now());
      else await store.unsubscribe(partnerId, type, found);
      const body = await answer(store);
      await answerWithinChange(trx, write, 200, body);
      return body;
    });
  }

  /** The replaced `/v3/webhooks/whitelists/businesses/add|remove`: the partner's WEBHOOK total afterwards. */
  async whitelist(principal: Principal, action: 'subscribe' | 'unsubscribe', body: unknown, write?: PartnerWrite) {
    return this.changeNow(principal.partnerId, 'WEBHOOK', action, businessIdList(body, MAX_IDS.whitelist), write, async (store) => ({
      whitelist_business_ids_count: await store.count(principal.partnerId, 'WEBHOOK'),
    }));
  }

  async listingManagementList(principal: Principal, query: Record<string, unknown>) {
    const { limit, offset } = parsePage(query, { defaultLimit: 50, minLimit: 1, maxLimit: 10_000 });
    return this.page(principal.partnerId, 'LISTING_MANAGEMENT', limit, offset);
  }

  async listingManagementChange(
    principal: Principal,
    action: 'subscribe' | 'unsubscribe',
    body: unknown,
    write?: PartnerWrite,
  ): Promise<Record<string, never>> {
    return this.changeNow(
      principal.partnerId,
      'LISTING_MANAGEMENT',
      action,
      businessIdList(body, MAX_IDS.listingManagement),
      write,
      async () => ({}),
    );
  }
}
