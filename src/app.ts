import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { businessesMigration, catalogSequenceMigration } from './businesses/business-tables.js';
import { businessesModule } from './businesses/module.js';
import { engagementModule } from './engagement/module.js';
import { operationsModule, systemModule } from './operations/module.js';
import { partnersModule } from './partners/module.js';
import { oauthTokenSecretMigration, partnersMigration } from './partners/partner-tables.js';
import { leadsModule } from './leads/module.js';
import { ownersModule } from './owners/module.js';
import { reviewsModule } from './reviews/module.js';
import { waitlistModule } from './waitlist/module.js';
import { advertisingModule } from './advertising/module.js';
import { reservationsModule } from './reservations/module.js';
import { searchModule, searchServices } from './search/module.js';
import { subscriptionsModule } from './subscriptions/module.js';
import { webhooksModule } from './webhooks/module.js';
import { workbenchModule } from './workbench/module.js';
import { readinessAccess, readinessModule } from './readiness/module.js';
import { installRequestRecording } from './platform/http/request-recording.js';
import { buildServices, findSources, type Services } from './services.js';
import type { OccupancyIndex } from './reservations/occupancy.js';
import type { WebhookDeliverer } from './webhooks/deliverer.js';
import { changeLogMigration } from './platform/change-feed.js';
import { ControllableClock, systemClock, type Clock } from './platform/clock.js';
import { ClockSync } from './platform/clock-sync.js';
import type { Config } from './platform/config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { migrateToLatest, type PbsMigration } from './platform/db/migrate.js';
import { idempotencyClaimMigration, platformMigration, tasksMigration } from './platform/db/platform-tables.js';
import type { EventRelay } from './platform/event-relay.js';
import { domainEventsMigration, eventRelayMigration, eventRequestMigration } from './platform/events.js';
import { installGuards } from './platform/http/guards.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { createHttpServer } from './platform/http/server.js';
import { ImportSpool } from './platform/http/streamed-body.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { TaskRunner } from './platform/tasks/task-runner.js';
import { Metrics } from './platform/metrics.js';
import type { ApiModule, CommandGroup, PlatformContext } from './platform/module.js';
import { FailureThrottle, RateLimiter, TokenBuckets } from './platform/rate-limit.js';
import { AdminToken } from './platform/admin-token.js';
import { auditingTransact, writeAudit } from './platform/audit/audit-trail.js';
import { teamModule } from './team/module.js';
import { SettingsStore } from './platform/settings.js';
import { codeOf, messageOf } from './platform/values.js';
import { OperatorSessions, operatorSessionRoutes } from './platform/http/operator-session.js';

export type { Services } from './services.js';

export const VERSION = '0.1.0';

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
  /** Where the process log goes instead of stdout (tests read it). */
  logStream?: { write(line: string): void };
}

/**
 * /docs lists the partner interfaces in the spec's order (docs/contract/), then what serves them
 * all; the operator's and the system's tags follow (registerOpenApi adds them last).
 */
const TAG_ORDER = [
  'reservations',
  'advertising',
  'waitlist',
  'private reviews',
  'engagement metrics',
  'subscriptions',
  'leads',
  'businesses',
  'oauth',
  'portal',
];

function inSpecOrder<T extends { name: string }>(tags: T[]): T[] {
  const rank = (tag: T) => (TAG_ORDER.includes(tag.name) ? TAG_ORDER.indexOf(tag.name) : TAG_ORDER.length);
  return [...tags].sort((a, b) => rank(a) - rank(b));
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
  eventRequestMigration,
  tasksMigration,
  idempotencyClaimMigration,
];

/** A database pbs cannot use at start: said in one line, without a stack trace. */
export class DatabaseUnavailable extends Error {}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  try {
    return await openDatabase({
      databaseUrl: config.databaseUrl,
      sqlitePath: config.sqlitePath,
      pgPoolSize: config.pgPoolSize,
      timeoutMs: config.dbTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
    });
  } catch (error) {
    throw new DatabaseUnavailable(`cannot open the database ${describeLocation(config)}: ${messageOf(error)}`);
  }
}

function describeLocation(config: Config): string {
  if (!config.databaseUrl) return `sqlite:${config.sqlitePath}`;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}

/** One log line when the database becomes unreachable, and one when it is back (not one per failed request). */
function reportAvailability(database: Database, log: FastifyBaseLogger): void {
  database.availability.onChange((state, cause, downForMs) => {
    if (state === 'down') log.error({ cause }, 'the database is unreachable: requests that need it answer 503 until it is back');
    else if (state === 'up') log.warn({ downForMs }, 'the database is reachable again');
  });
}

/** Where import bodies wait on disk, and how much of it they may hold at once (platform/http/streamed-body.ts). */
export function importSpoolOf(config: Config): ImportSpool {
  return new ImportSpool(path.join(config.dataDir, 'spool'), config.importSpoolMaxBytes);
}

/** Replaces the stored operator token (when the printed one was lost); returns the new token. */
export async function resetAdminToken(database: Database): Promise<string> {
  return AdminToken.reset(new SettingsStore(database.db));
}

export async function createPbs(config: Config, options: PbsOptions = {}): Promise<Pbs> {
  const opened = options.database ?? (await openConfiguredDatabase(config));
  // An operator's change writes its audit record in its own transaction (platform/audit).
  const database: Database = { ...opened, transact: auditingTransact((work) => opened.transact(work)) };
  const sandboxClock = options.clock
    ? options.clock instanceof ControllableClock
      ? options.clock
      : undefined
    : config.sandbox
      ? new ControllableClock()
      : undefined;
  const clock: Clock = options.clock ?? sandboxClock ?? systemClock;
  const clockSync = sandboxClock ? new ClockSync(sandboxClock, database, config.clockSyncMs) : undefined;

  const metrics = new Metrics({ defaultMetrics: true, role: config.role });
  const app = createHttpServer({
    logLevel: config.logLevel,
    logRequests: config.logRequests,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    trustProxy: config.trustProxy,
    metrics,
    onOutage: (error) => database.availability.report(error),
    logStream: options.logStream,
  });
  reportAvailability(database, app.log);
  app.decorate('importSpool', importSpoolOf(config));
  const tasks = new TaskRunner(database, clock, {
    ...config.tasks,
    onError: (error, task) => {
      if (!database.availability.report(error)) app.log.warn({ err: error, task: task?.id, type: task?.type }, 'task attempt failed');
    },
    onOutcome: (type, outcome) => metrics.taskOutcomes.inc({ type, outcome }),
  });
  const ctx: PlatformContext = {
    config,
    database,
    clock,
    wallClock: options.wallClock ?? Date.now,
    sandboxClock,
    clockSync,
    tasks,
    metrics,
    log: app.log,
  };

  const { services, catalog, occupancy, changes, relay, deliverer, keys } = buildServices(ctx);
  const rateLimiter = new RateLimiter(clock, options.wallClock);
  const authFailures = new FailureThrottle(config.clientLimits.authFailuresPerMinute, options.wallClock);
  const publicLimiter = new TokenBuckets(config.clientLimits.publicPerSecond, config.clientLimits.publicPerSecond * 2, options.wallClock);
  const portalLimiter = new TokenBuckets(config.clientLimits.portalPerSecond, config.clientLimits.portalPerSecond * 2, options.wallClock);
  const adminToken = new AdminToken(new SettingsStore(database.db), config.adminToken, options.wallClock);
  // Every family of pbs, in the order their routes register (and the OpenAPI document lists them).
  const modules: ApiModule[] = [
    systemModule(ctx, { ready: () => ready }),
    operationsModule(ctx, findSources(services)),
    businessesModule(database, clock, services.businesses, services.reservations.operator),
    partnersModule(services.partners, services.credentials, authFailures, services.portal, readinessAccess(services, ctx.wallClock), {
      clients: services.oauthClients,
      grants: {
        // Both token endpoint versions redeem a code alike; they differ on refresh.
        authorization_code: (client, form) => services.owners.authorization.redeemCode(client, form),
        refresh_token: (client, form, version) => services.owners.authorization.refresh(client, form, version),
      },
      revoke: (client, token) => services.owners.revocation.revokeToken(client, token),
    }),
    waitlistModule(services.partners, services.waitlist),
    reservationsModule(services.reservations, keys),
    searchModule(searchServices(ctx, catalog, occupancy, services.businesses)),
    subscriptionsModule(services.subscriptions),
    webhooksModule(services.webhooks, (business, input) => services.leads.conversations.emit(business, input)),
    advertisingModule(services.advertising),
    reviewsModule(services.reviews),
    leadsModule(services.leads),
    ownersModule(services.owners, {
      publicUrl: config.publicUrl,
      sandbox: config.sandbox,
      requirePartner: async (partnerId) => void (await services.partners.get(partnerId)),
      failures: authFailures,
    }),
    engagementModule(services.engagement),
    workbenchModule(services, config.publicUrl),
    readinessModule(services, ctx.wallClock),
    teamModule(services, {
      publicUrl: config.publicUrl,
      sessionMs: config.operatorSessionMs,
      failures: authFailures,
      bootstrap: { isOff: () => adminToken.isOff(), turnOff: () => database.transact((trx) => adminToken.turnOff(trx)) },
    }),
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
  const generatedAdminToken = await adminToken.load(options.issueAdminToken ?? true);
  const operatorSessions = new OperatorSessions(
    () => keys.key('operator-session'),
    () => adminToken.currentHash(),
    config.operatorSessionMs,
    options.wallClock,
  );

  const idempotency = new IdempotencyStore(database.db, clock, config.idempotencyTtlMs, config.idempotencyTakeoverMs);
  database.availability.onChange((state) => {
    if (state === 'up') void idempotency.releasePending();
  });
  // Stored idempotent answers are kept for a day (pbs time); older ones go every ten minutes.
  tasks.schedule({ name: 'idempotency.purge', everyMs: 600_000, run: async () => void (await idempotency.purgeExpired()) });
  installGuards(app, {
    verifier: services.credentials,
    links: services.partners,
    rateLimiter,
    idempotency,
    defaultLimits: config.rateLimit,
    operators: {
      bootstrapMatches: (token) => adminToken.matches(token),
      bootstrapSessions: operatorSessions,
      accounts: services.team,
      publicOrigin: new URL(config.publicUrl).origin,
    },
    audit: { wallNow: ctx.wallClock, writeAlone: (draft) => writeAudit(database.db, draft, 'after the change') },
    publicLimiter,
    authFailures,
    portal: services.portal,
    portalLimiter,
    publicOrigin: new URL(config.publicUrl).origin,
    // Sandbox only: a production server never looks for fault rules.
    faults: config.sandbox ? services.faults : undefined,
  });
  // After the guards: the answer recorded is the one sent (a replayed Idempotency-Key answer too).
  if (config.requestLog.enabled) installRequestRecording(app, services.requestLog, () => clock.now());
  const http = options.http ?? true;
  if (http) await registerOpenApi(app, { version: VERSION, tags: inSpecOrder(modules.flatMap((m) => m.tags ?? [])) });
  if (http && config.role !== 'worker')
    await app.register(operatorSessionRoutes(operatorSessions, config.publicUrl, (value) => services.team.endSession(value)));
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
      // Background work fails at once while the database is down (its loops retry on their
      // timers); when it is back, they carry on now rather than at their next poll.
      database.availability.onChange((state) => {
        if (state !== 'up') return;
        tasks.wake();
        relay.wake();
        deliverer.wake();
      });
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
      await services.requestLog.close();
      await services.webhooks.close();
      await changes.close();
      if (!options.keepDatabaseOpen) await database.close();
    },
  };
}
