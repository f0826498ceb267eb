import type { FastifyInstance } from 'fastify';
import { businessAdminRoutes } from './businesses/admin-routes.js';
import { BusinessLookup } from './businesses/business-lookup.js';
import { businessPublicRoutes } from './businesses/public-routes.js';
import { BusinessService } from './businesses/business-service.js';
import { businessesMigration, catalogSequenceMigration } from './businesses/business-tables.js';
import { consoleRoutes } from './operations/console-routes.js';
import { operationsAdminRoutes, systemRoutes } from './operations/routes.js';
import { CredentialService } from './partners/credential-service.js';
import { PartnerService } from './partners/partner-service.js';
import { oauthTokenSecretMigration, partnersMigration } from './partners/partner-tables.js';
import { oauthRoutes, partnerAdminRoutes } from './partners/routes.js';
import { engagementModule } from './engagement/module.js';
import { EngagementService } from './engagement/engagement-service.js';
import { reviewsModule } from './reviews/module.js';
import { ReviewService } from './reviews/review-service.js';
import { waitlistModule, waitlistServices, type WaitlistServices } from './waitlist/module.js';
import { advertisingModule, advertisingServices, type AdvertisingServices } from './advertising/module.js';
import { ApiError } from './platform/errors.js';
import { reservationServices, reservationsModule, type ReservationServices } from './reservations/module.js';
import { InventoryStore } from './reservations/inventory-store.js';
import { searchModule } from './search/module.js';
import { Catalog } from './catalog/catalog.js';
import { ChangeFeed, changeLogMigration } from './platform/change-feed.js';
import { OccupancyIndex } from './reservations/occupancy.js';
import { subscriptionsModule } from './subscriptions/module.js';
import { SubscriptionService } from './subscriptions/subscription-service.js';
import { WebhookDeliverer } from './webhooks/deliverer.js';
import { webhooksModule } from './webhooks/module.js';
import { WebhookService } from './webhooks/webhook-service.js';
import { ControllableClock, systemClock, type Clock } from './platform/clock.js';
import { ClockSync } from './platform/clock-sync.js';
import type { Config } from './platform/config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { migrateToLatest, type PbsMigration } from './platform/db/migrate.js';
import { platformMigration, tasksMigration } from './platform/db/platform-tables.js';
import { EventRelay } from './platform/event-relay.js';
import { domainEventsMigration, eventRelayMigration } from './platform/events.js';
import { installGuards } from './platform/http/guards.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { createHttpServer } from './platform/http/server.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { TaskRunner } from './platform/tasks/task-runner.js';
import { Metrics } from './platform/metrics.js';
import type { ApiModule, CommandGroup, PlatformContext } from './platform/module.js';
import { businessCommand } from './commands/business.js';
import { partnerCommand } from './commands/partner.js';
import { FailureThrottle, RateLimiter, TokenBuckets } from './platform/rate-limit.js';
import { AdminToken } from './platform/admin-token.js';
import { SecretKeys } from './platform/secret-keys.js';
import { SettingsStore } from './platform/settings.js';
import { codeOf, messageOf } from './platform/values.js';

export const VERSION = '0.1.0';

export interface Services {
  businesses: BusinessService;
  partners: PartnerService;
  credentials: CredentialService;
  reservations: ReservationServices;
  webhooks: WebhookService;
  waitlist: WaitlistServices;
  advertising: AdvertisingServices;
  reviews: ReviewService;
  engagement: EngagementService;
}

/** Everything a running pbs is made of; tests build one per database. */
export interface Pbs {
  app: FastifyInstance;
  ctx: PlatformContext;
  services: Services;
  rateLimiter: RateLimiter;
  deliverer: WebhookDeliverer;
  /** Hands committed events to their consumers (webhook fan-out). */
  relay: EventRelay;
  occupancy: OccupancyIndex;
  /** The `pbs` command groups the modules declare, by name. */
  commands: ReadonlyMap<string, CommandGroup>;
  /** Relays waiting events and delivers what is due, waiting for both (tests call this instead of sleeping). */
  deliverWebhooks(): Promise<number>;
  /** Set only when this start generated the admin token (print it once). */
  generatedAdminToken: string | undefined;
  /** Listens on the configured port and starts the background work (when this process runs it). */
  listen(): Promise<string>;
  /** Starts only the background work: a worker process of a cluster, which shares no port. */
  startBackground(): void;
  close(): Promise<void>;
}

export interface PbsOptions {
  /** An already open database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** Families added by the caller (the API families, and probe routes in tests). */
  modules?: (ctx: PlatformContext, services: Services) => ApiModule[];
  /** Wall time for load-related windows (per-second rate limits); tests replace it. */
  wallClock?: () => number;
  /** Create and return an admin token when none exists (serve does; one-shot CLI commands do not). */
  issueAdminToken?: boolean;
  /** Keep the database open on close (the caller owns it). */
  keepDatabaseOpen?: boolean;
  /**
   * Build the HTTP API (routes, OpenAPI, compiled schemas); default true. One-shot CLI commands
   * call services only and skip it: compiling every route's schemas is a third of their start.
   */
  http?: boolean;
}

/** Migrations of the foundation; families add theirs through their module. */
export const foundationMigrations: PbsMigration[] = [
  platformMigration,
  businessesMigration,
  catalogSequenceMigration,
  partnersMigration,
  domainEventsMigration,
  changeLogMigration,
  oauthTokenSecretMigration,
  eventRelayMigration,
  tasksMigration,
];

/** A database pbs cannot use at start: said in one line, without a stack trace. */
export class DatabaseUnavailable extends Error {}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  try {
    return await openDatabase({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath, pgPoolSize: config.pgPoolSize });
  } catch (error) {
    throw new DatabaseUnavailable(`cannot open the database ${describeLocation(config)}: ${messageOf(error)}`);
  }
}

function describeLocation(config: Config): string {
  if (!config.databaseUrl) return `sqlite:${config.sqlitePath}`;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}

/** Replaces the stored operator token (when the printed one was lost); returns the new token. */
export async function resetAdminToken(database: Database): Promise<string> {
  return AdminToken.reset(new SettingsStore(database.db));
}

export async function createPbs(config: Config, options: PbsOptions = {}): Promise<Pbs> {
  const database = options.database ?? (await openConfiguredDatabase(config));
  const sandboxClock = options.clock
    ? options.clock instanceof ControllableClock
      ? options.clock
      : undefined
    : config.sandbox
      ? new ControllableClock()
      : undefined;
  const clock: Clock = options.clock ?? sandboxClock ?? systemClock;
  const clockSync = sandboxClock ? new ClockSync(sandboxClock, database.db, config.clockSyncMs) : undefined;

  const metrics = new Metrics({ defaultMetrics: true, role: config.role });
  const app = createHttpServer({
    logLevel: config.logLevel,
    logRequests: config.logRequests,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    trustProxy: config.trustProxy,
    metrics,
  });
  const tasks = new TaskRunner(database, clock, {
    ...config.tasks,
    onError: (error, task) => app.log.warn({ err: error, task: task?.id, type: task?.type }, 'task attempt failed'),
    onOutcome: (type, outcome) => metrics.taskOutcomes.inc({ type, outcome }),
  });
  const ctx: PlatformContext = { config, database, clock, sandboxClock, clockSync, tasks, metrics, log: app.log };

  const keys = new SecretKeys(database.db, config.secretKey);
  const credentials = new CredentialService(database, clock, config.authCacheMs, keys);
  // The catalogue's data comes from its owners (called when it loads, after all is built).
  const catalog = new Catalog(
    {
      sequence: () => businesses.catalogSequence(),
      businesses: (after, upTo, cursor, limit) => businesses.changedPage(after, upTo, cursor, limit),
      inventories: (after, upTo, cursor, limit) => new InventoryStore(database.db).changedPage(after, upTo, cursor, limit),
    },
    config.catalogMaxStaleMs,
  );
  const changes = new ChangeFeed(database);
  const occupancy = new OccupancyIndex(database, clock, changes, config.rememberedDays);
  const addressPolicy = { allowPrivate: config.webhooks.allowPrivateAddresses, allowLoopback: config.sandbox };
  const deliverer = new WebhookDeliverer(database, clock, config.webhooks, addressPolicy);
  const relay = new EventRelay(database, clock, {
    batchSize: 200,
    pollMs: config.webhooks.pollMs,
    onRelayed: () => deliverer.wake(),
    onError: (error) => app.log.warn({ err: error }, 'relaying events failed; retried'),
  });
  const businesses = new BusinessService(database, clock, () => {
    catalog.invalidate();
    // Waitlist hours default to a business's opening hours.
    waitlist.lines.forget();
    // A confirmed link by alias may name another business now.
    partners.forgetLinks();
  });
  const partners = new PartnerService(database, clock, businesses, () => credentials.invalidate(), config.authCacheMs, changes);
  const subscriptions = new SubscriptionService(database, clock, tasks, partners, businesses);
  partners.onUnlink((trx, partnerId, businessId) => subscriptions.forget(trx, partnerId, businessId));
  const waitlist = waitlistServices(database, clock, businesses, changes, {
    onEventsCommitted: () => relay.wake(),
    // A restaurant without reservations has no inventory (an ApiError); anything else is a fault.
    inventoryOf: (businessId) =>
      services.reservations.operator.getSettings(businessId).catch((error: unknown) => {
        if (error instanceof ApiError) return undefined;
        throw error;
      }),
  });
  const advertising = advertisingServices(database, clock, tasks, businesses, {
    processingDelayMs: config.adJobDelayMs,
    onEventsCommitted: () => relay.wake(),
  });
  const services: Services = {
    businesses,
    partners,
    credentials,
    reservations: reservationServices(database, clock, catalog, occupancy, changes, businesses, {
      publicUrl: config.publicUrl,
      openingsWindowMinutes: config.openingsWindowMinutes,
      onLockedRetry: () => metrics.bookingRetries.inc(),
      onEventsCommitted: () => relay.wake(),
    }),
    webhooks: new WebhookService(
      database,
      clock,
      config.webhooks,
      addressPolicy,
      {
        // Subscribed and still linked: a link is what lets a partner hear of a business at all.
        async receiversOf(db, businessId) {
          const subscribed = await subscriptions.webhookSubscribers(db, businessId);
          const linked = await partners.partnersLinkedTo(db, businessId, subscribed);
          return subscribed.filter((id) => linked.has(id));
        },
        mayReceive: (db, partnerIds) => partners.activeWith(db, 'webhooks', partnerIds),
        requirePartner: async (partnerId) => void (await partners.get(partnerId)),
      },
      businesses,
      () => deliverer.wake(),
      () => relay.wake(),
    ),
    waitlist,
    advertising,
    reviews: new ReviewService(database, clock, businesses, changes, {
      publicUrl: config.publicUrl,
      nestedByDefault: config.reviewsNested,
      onEventsCommitted: () => relay.wake(),
    }),
    engagement: new EngagementService(database, clock, tasks, businesses, changes),
  };
  relay.register((trx, events) => services.webhooks.fanOut(trx, events));
  const rateLimiter = new RateLimiter(clock, options.wallClock);
  const authFailures = new FailureThrottle(config.clientLimits.authFailuresPerMinute, options.wallClock);
  const publicLimiter = new TokenBuckets(config.clientLimits.publicPerSecond, config.clientLimits.publicPerSecond * 2, options.wallClock);
  const modules: ApiModule[] = [
    { name: 'system', routes: systemRoutes(ctx, { ready: () => ready }) },
    { name: 'operations', routes: operationsAdminRoutes(ctx) },
    { name: 'console', routes: consoleRoutes() },
    {
      name: 'businesses',
      routes: businessAdminRoutes(services.businesses),
      commands: { business: (args, flags) => businessCommand({ businesses, reservations: services.reservations.operator }, args, flags) },
    },
    {
      name: 'business-lookup',
      tags: [
        {
          name: 'businesses',
          description: 'Public business data: Business Match and business details (Bearer API key; any partner interface)',
        },
      ],
      routes: businessPublicRoutes(new BusinessLookup(database.db, clock)),
    },
    {
      name: 'partners',
      routes: partnerAdminRoutes(partners, credentials),
      commands: { partner: (args, flags) => partnerCommand({ partners, credentials }, args, flags) },
    },
    {
      name: 'oauth',
      tags: [{ name: 'oauth', description: 'Access tokens for partner clients' }],
      routes: oauthRoutes(credentials, authFailures),
    },
    waitlistModule(services.partners, services.waitlist),
    reservationsModule(services.reservations, keys),
    searchModule(ctx, catalog, occupancy, services.businesses),
    subscriptionsModule(subscriptions),
    webhooksModule(services.webhooks),
    advertisingModule(services.advertising),
    reviewsModule(services.reviews),
    engagementModule(services.engagement),
    ...(options.modules?.(ctx, services) ?? []),
  ];

  try {
    await migrateToLatest(database, [...foundationMigrations, ...modules.flatMap((m) => m.migrations ?? [])]);
  } catch (error) {
    if (!options.database) await database.close().catch(() => {});
    // Connection refused, no such database or schema, no permission: one line, not a stack trace.
    const code = codeOf(error);
    if (code && /^(E[A-Z]+|[0-9A-Z]{5})$/.test(code))
      throw new DatabaseUnavailable(`cannot use the database ${database.description}: ${messageOf(error)}`);
    throw error;
  }
  await clockSync?.load();
  await changes.start();
  const adminToken = new AdminToken(new SettingsStore(database.db), config.adminToken, options.wallClock);
  const generatedAdminToken = await adminToken.load(options.issueAdminToken ?? true);

  const idempotency = new IdempotencyStore(database.db, clock, config.idempotencyTtlMs, config.idempotencyTakeoverMs);
  // Stored idempotent answers are kept for a day (pbs time); older ones go every ten minutes.
  tasks.schedule({ name: 'idempotency.purge', everyMs: 600_000, run: async () => void (await idempotency.purgeExpired()) });
  installGuards(app, {
    verifier: credentials,
    links: services.partners,
    rateLimiter,
    idempotency,
    defaultLimits: config.rateLimit,
    adminTokenMatches: (token) => adminToken.matches(token),
    publicLimiter,
    authFailures,
  });
  const http = options.http ?? true;
  if (http) await registerOpenApi(app, { version: VERSION, tags: modules.flatMap((m) => m.tags ?? []) });
  // A worker process answers only health, readiness and metrics: its port is for probes.
  const servesApi = config.role !== 'worker';
  for (const module of modules) {
    module.registerTasks?.(tasks);
    if (http && module.routes && (servesApi || module.name === 'system')) await app.register(module.routes);
  }
  await app.ready();

  let ready = true;
  let closed = false;
  const startBackground = () => {
    if (config.tasks.enabled) {
      tasks.start();
      relay.start();
      deliverer.start();
    }
    clockSync?.start();
  };
  return {
    app,
    ctx,
    services,
    rateLimiter,
    deliverer,
    relay,
    occupancy,
    commands: new Map(modules.flatMap((m) => Object.entries(m.commands ?? {}))),
    generatedAdminToken,
    async deliverWebhooks() {
      await relay.runDue();
      return deliverer.runDue();
    },
    async listen() {
      const address = await app.listen({ port: config.port, host: config.host });
      startBackground();
      // Load the catalogue and the bookings now rather than on the first openings or search request.
      if (servesApi) {
        void catalog.current().catch((error) => app.log.warn({ err: error }, 'loading the catalogue failed; retried on first use'));
        void occupancy.sync().catch((error) => app.log.warn({ err: error }, 'loading bookings failed; retried on first use'));
      }
      return address;
    },
    startBackground,
    async close() {
      if (closed) return;
      closed = true;
      ready = false;
      clockSync?.stop();
      await app.close();
      await tasks.stop();
      await relay.stop();
      await deliverer.stop();
      await services.webhooks.close();
      await changes.close();
      if (!options.keepDatabaseOpen) await database.close();
    },
  };
}
