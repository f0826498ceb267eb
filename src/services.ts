import type { FindSources } from './operations/find.js';
import type { BusinessService } from './businesses/business-service.js';
import { businessServices } from './businesses/module.js';
import { Catalog } from './catalog/catalog.js';
import { engagementServices } from './engagement/module.js';
import type { EngagementService } from './engagement/engagement-service.js';
import { CredentialService } from './partners/credential-service.js';
import { partnerServices } from './partners/module.js';
import type { PartnerService } from './partners/partner-service.js';
import { ApiError, apiError } from './platform/errors.js';
import { ChangeFeed } from './platform/change-feed.js';
import { EventRelay } from './platform/event-relay.js';
import type { PlatformContext } from './platform/module.js';
import { SecretKeys } from './platform/secret-keys.js';
import { InventoryStore } from './reservations/inventory-store.js';
import { reservationServices, type ReservationServices } from './reservations/module.js';
import { OccupancyIndex } from './reservations/occupancy.js';
import { leadServices, type LeadServices } from './leads/module.js';
import { ownerServices, type OwnerServices } from './owners/module.js';
import { USER_TOKEN_PREFIX } from './owners/authorization-rules.js';
import { OauthClientService } from './partners/oauth-clients.js';
import { reviewServices } from './reviews/module.js';
import type { ReviewService } from './reviews/review-service.js';
import { subscriptionServices } from './subscriptions/module.js';
import type { SubscriptionService } from './subscriptions/subscription-service.js';
import { waitlistServices, type WaitlistServices } from './waitlist/module.js';
import { advertisingServices, type AdvertisingServices } from './advertising/module.js';
import { webhookServices } from './webhooks/module.js';
import { workbenchServices } from './workbench/module.js';
import { readinessServices } from './readiness/module.js';
import type { Readiness } from './readiness/readiness-service.js';
import type { Drills } from './readiness/drill-service.js';
import { DELIVERIES_JUDGED } from './readiness/milestones.js';
import { teamServices } from './team/module.js';
import type { Team } from './team/team-service.js';
import type { AuditService } from './team/audit-service.js';
import type { OperatorSso } from './team/sso.js';
import type { RequestLog } from './workbench/request-log.js';
import type { Portal } from './workbench/portal.js';
import type { Faults } from './workbench/faults.js';
import type { WebhookDeliverer } from './webhooks/deliverer.js';
import type { WebhookService } from './webhooks/webhook-service.js';

/** Every family's services, by family: what routes, commands and tests call. */
export interface Services {
  businesses: BusinessService;
  partners: PartnerService;
  credentials: CredentialService;
  subscriptions: SubscriptionService;
  reservations: ReservationServices;
  webhooks: WebhookService;
  waitlist: WaitlistServices;
  advertising: AdvertisingServices;
  reviews: ReviewService;
  /** Leads and their conversations, behind every lead webhook. */
  leads: LeadServices;
  /** Business users (owners), the businesses they manage, and their authorization of partners. */
  owners: OwnerServices;
  /** Partners' OAuth clients (token endpoint, business users' authorization). */
  oauthClients: OauthClientService;
  engagement: EngagementService;
  /** What partners sent and were answered (the workbench). */
  requestLog: RequestLog;
  /** Partner portal links and sessions (the workbench). */
  portal: Portal;
  /** Faults on demand, sandbox (the workbench). */
  faults: Faults;
  /** Operator accounts, their tokens and sessions (the team). */
  team: Team;
  /** The audit trail's reads (the team). */
  audit: AuditService;
  /** Operators' single sign-on, when configured (the team). */
  sso?: OperatorSso;
  /** Partners' launch readiness from their own traffic (readiness). */
  readiness: Readiness;
  /** Drills against a partner's client, sandbox (readiness). */
  drills: Drills;
}

/** The services and the shared parts around them that a running pbs starts, stops and serves from. */
export interface Wiring {
  services: Services;
  /** The reservable restaurants in memory, for search and openings (docs/adr/0007). */
  catalog: Catalog;
  occupancy: OccupancyIndex;
  /** Committed changes seen by every process (read caches forget by it). */
  changes: ChangeFeed;
  /** Hands committed events to their consumers (webhook fan-out). */
  relay: EventRelay;
  deliverer: WebhookDeliverer;
  keys: SecretKeys;
}

/**
 * Builds every family's services over the platform, in one place, so that what one family asks
 * of another is written here and nowhere else: each family's factory (its `module.ts`) takes
 * plain functions or the other family's exported service, never its store.
 */
export function buildServices(ctx: PlatformContext): Wiring {
  const { config, database, clock, tasks, metrics, log } = ctx;
  const keys = new SecretKeys(database.db, config.secretKey);
  // Production credentials wait for the operator's approval for launch (docs/readiness.md).
  const credentials = new CredentialService(
    database,
    clock,
    config.authCacheMs,
    keys,
    config.sandbox ? undefined : (partnerId) => services.readiness.isApproved(partnerId),
  );
  const changes = new ChangeFeed(database);
  // The catalogue's data comes from its owners (called when it loads, after all is built).
  const catalog = new Catalog(
    {
      sequence: () => businesses.catalogSequence(),
      businesses: (after, upTo, cursor, limit) => businesses.changedPage(after, upTo, cursor, limit),
      inventories: (after, upTo, cursor, limit) => new InventoryStore(database.db).changedPage(after, upTo, cursor, limit),
    },
    config.catalogMaxStaleMs,
  );
  const occupancy = new OccupancyIndex(database, clock, changes, config.rememberedDays);
  const relay = new EventRelay(database, clock, {
    batchSize: 200,
    pollMs: config.webhooks.pollMs,
    onRelayed: () => webhooks.deliverer.wake(),
    onError: (error) => {
      // An outage is logged once by the database's availability; the relay retries on its timer.
      if (!database.availability.report(error)) log.warn({ err: error }, 'relaying events failed; retried');
    },
  });
  const onEventsCommitted = () => relay.wake();

  const businesses = businessServices(database, clock, () => {
    catalog.invalidate();
    // Waitlist hours default to a business's opening hours.
    waitlist.lines.forget();
    // A confirmed link by alias may name another business now.
    partners.forgetLinks();
  });
  const partners = partnerServices(database, clock, businesses, () => credentials.invalidate(), config.authCacheMs, changes);
  const subscriptions = subscriptionServices(database, clock, tasks, partners, businesses);
  /** A partner's name and enabled interfaces (the partners family's 404 for an unknown one): the workbench's and readiness's. */
  const describePartner = async (partnerId: string) => {
    const partner = await partners.get(partnerId);
    const enabled = Object.entries(partner.interfaces).filter(([, grant]) => grant.enabled);
    return { name: partner.name, interfaces: enabled.map(([name]) => name) };
  };
  partners.onUnlink((trx, partnerId, businessId) => subscriptions.forget(trx, partnerId, businessId));
  const reservations = reservationServices(database, clock, catalog, occupancy, changes, businesses, {
    publicUrl: config.publicUrl,
    openingsWindowMinutes: config.openingsWindowMinutes,
    onLockedRetry: () => metrics.bookingRetries.inc(),
    onEventsCommitted,
  });
  const waitlist = waitlistServices(database, clock, businesses, changes, {
    onEventsCommitted,
    // A restaurant without reservations has no inventory (an ApiError); anything else is a fault.
    inventoryOf: (businessId) =>
      reservations.operator.getSettings(businessId).catch((error: unknown) => {
        if (error instanceof ApiError) return undefined;
        throw error;
      }),
  });
  const oauthClients = new OauthClientService(database, clock, keys);
  const owners = ownerServices(database, clock, {
    businesses,
    clients: oauthClients,
    keys,
    sandbox: config.sandbox,
    onRevoked: () => credentials.invalidate(),
  });
  credentials.acceptBusinessUserTokens(USER_TOKEN_PREFIX, (token) => owners.authorization.reachOf(token));
  const advertising = advertisingServices(database, clock, tasks, businesses, {
    processingDelayMs: config.adJobDelayMs,
    onEventsCommitted,
  });
  const addressPolicy = { allowPrivate: config.webhooks.allowPrivateAddresses, allowLoopback: config.sandbox };
  const webhooks = webhookServices(
    database,
    clock,
    config.webhooks,
    addressPolicy,
    {
      // Subscribed and still linked: a link is what lets a partner hear of a business at all.
      async receiversOf(db, businessId, eventType) {
        const subscribed = await subscriptions.webhookSubscribers(db, businessId);
        const linked = await partners.partnersLinkedTo(db, businessId, subscribed);
        // A business user's self-serve lead subscription needs no link: their authorization is it.
        const forLeads = await services.leads.webhooks.subscribersOf(db, businessId, eventType);
        return [...new Set([...subscribed.filter((id) => linked.has(id)), ...forLeads])];
      },
      mayReceive: (db, partnerIds) => partners.activeWith(db, 'webhooks', partnerIds),
      requirePartner: async (partnerId) => void (await partners.get(partnerId)),
    },
    businesses,
    relay,
  );
  const services: Services = {
    businesses,
    partners,
    credentials,
    subscriptions,
    reservations,
    webhooks: webhooks.endpoints,
    waitlist,
    advertising,
    reviews: reviewServices(database, clock, businesses, changes, {
      publicUrl: config.publicUrl,
      nestedByDefault: config.reviewsNested,
      onEventsCommitted,
    }),
    leads: leadServices(
      database,
      clock,
      businesses,
      { publicUrl: config.publicUrl, onEventsCommitted },
      {
        sandbox: config.sandbox,
        async linkedBusiness(partnerId, businessIdOrAlias) {
          const check = await partners.check(partnerId, [businessIdOrAlias]);
          const businessId = check.resolved.get(businessIdOrAlias);
          if (businessId === undefined) throw apiError('BUSINESS_NOT_FOUND', `Business not found: ${businessIdOrAlias}`);
          if (check.unlinked.length > 0)
            throw apiError('AUTHORIZATION_ERROR', `You are not linked to business ${businessIdOrAlias}; ask your operator.`);
          return businessId;
        },
        manages: (userId, businessId) => owners.authorization.manages(userId, businessId),
        managedBusinesses: (userId) => owners.users.managedBusinesses(userId),
        managersOf: (db, businessId) => owners.users.managersOf(db, businessId),
        businessIdOf: async (idOrAlias) => (await businesses.resolveIds([idOrAlias])).get(idOrAlias),
        endpointUrl: async (partnerId) => (await webhooks.endpoints.endpointOf(partnerId))?.url,
        advertisingNow: (businessId) => advertising.listings.advertisingNow(businessId),
      },
    ),
    owners,
    oauthClients,
    engagement: engagementServices(database, clock, tasks, businesses, changes),
    ...workbenchServices(
      database,
      clock,
      ctx.wallClock,
      config,
      {
        describe: describePartner,
        standing: async (partnerId) => {
          const status = await partners.statusOf(partnerId);
          return status && { active: status === 'active', credentialsStamp: await credentials.stampOf(partnerId) };
        },
        partnerOfApiKey: async (token) => {
          const principal = await credentials.verifyBearer(token);
          return principal?.credentialKind === 'api_key' ? principal.partnerId : undefined;
        },
      },
      (requestId, partnerId) => webhooks.endpoints.causedBy(requestId, partnerId),
      (error) => {
        // While the database is away every batch fails: said once, by its availability.
        if (!database.availability.report(error)) log.warn({ err: error }, 'writing the request log failed; those entries are lost');
      },
      changes,
    ),
    ...teamServices(database, config, keys, ctx.wallClock),
    ...readinessServices(
      database,
      clock,
      {
        describe: describePartner,
        receiver: async (partnerId) => {
          const endpoint = await webhooks.endpoints.endpointOf(partnerId);
          const deliveries = endpoint ? await webhooks.endpoints.deliveries({ partnerId, limit: DELIVERIES_JUDGED }) : [];
          return {
            endpoint: endpoint && { url: endpoint.url, verified: endpoint.verified_at !== null },
            deliveries: deliveries.map((d) => ({ id: d.id, status: d.status, attempts: d.attempts_log })),
          };
        },
        flushLog: () => services.requestLog.flush(),
        partnerIds: async (limit, offset) => (await partners.list(limit, offset)).partners.map((p) => p.id),
        sandbox: config.sandbox,
        // Drills choose their operation from their own list (drill-judge.ts).
        addFault: (partnerId, rule) => services.faults.add(partnerId, rule, () => true),
        removeFault: (id, partnerId) => services.faults.remove(id, partnerId).catch(() => {}),
        endpoint: async (partnerId) => {
          const endpoint = await webhooks.endpoints.endpointOf(partnerId);
          return (
            endpoint && {
              verified: endpoint.verified_at !== null,
              duplicates: endpoint.duplicate_and_reorder,
              eventTypes: endpoint.event_types,
            }
          );
        },
        setDuplicates: async (partnerId, on) => void (await webhooks.endpoints.setDuplicateAndReorder(partnerId, on)),
        sendTestEvent: (partnerId, type) => webhooks.endpoints.sendTestEvent(partnerId, type, undefined),
        deliveriesOf: async (partnerId, messageIds) =>
          (await webhooks.endpoints.deliveries({ partnerId, messageIds, limit: 500 })).map((d) => ({
            id: d.id,
            message_id: d.message_id,
            attempts: d.attempts_log.map((a) => ({ status_code: a.status_code, latency_ms: a.latency_ms, at: Date.parse(a.at) })),
          })),
      },
      config.requestLog.enabled && config.requestLog.readiness,
    ),
  };
  return { services, catalog, occupancy, changes, relay, deliverer: webhooks.deliverer, keys };
}

/** Where the operator's "find anything" looks each kind up: the families' own reads. */
export function findSources(services: Services): FindSources {
  return {
    partners: (text, limit) => services.partners.find(text, limit),
    businesses: async (text, limit) =>
      (await services.businesses.list({ q: text, limit })).businesses.map((b) => ({ id: b.id, name: b.name, city: b.location.city })),
    reservation: (id) => services.reservations.operator.reservation(id),
    request: async (requestId) => {
      const [entry] = await services.requestLog.list({ requestId, limit: 1 });
      return entry && { partner_id: entry.partner_id, operation: entry.operation, status: entry.status, at: entry.at };
    },
    message: (id) => services.webhooks.message(id),
    lead: (id) => services.leads.conversations.find(id),
  };
}
