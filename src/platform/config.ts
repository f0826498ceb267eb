import { oidcConfig, type OidcConfig } from './oidc-config.js';
import { ConfigError } from './config-error.js';
import { bool, int, type Env } from './config-values.js';
import { requestLogConfig, type RequestLogConfig } from './request-log-config.js';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { isOneOf } from './query.js';

/** Everything pbs reads from its environment, read once at start and passed down. */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…` selects PostgreSQL; otherwise the embedded SQLite file below is used. */
  databaseUrl: string | undefined;
  sqlitePath: string;
  /** PostgreSQL connections per process. */
  pgPoolSize: number;
  /**
   * PostgreSQL: how long a connection may take to open and a probe to answer, and how long a
   * statement may go unanswered before the server is probed (docs/security.md "When the database goes away").
   */
  dbTimeoutMs: number;
  /** PostgreSQL: the server cancels a statement that runs longer (`statement_timeout`; migrations are exempt); 0 sets none. */
  dbStatementTimeoutMs: number;
  dataDir: string;
  /** Sandbox mode lets the operator move the clock and prints demo credentials. */
  sandbox: boolean;
  /** When set, /metrics asks for it as a bearer token. */
  metricsToken: string | undefined;
  /** Fixed operator token; when absent one is generated at first start and stored hashed. */
  adminToken: string | undefined;
  /** Root of derived keys (OAuth tokens, page tokens); production requires it (see SecretKeys). */
  secretKey: string | undefined;
  /** Public address used in links pbs hands out (confirmation pages, docs URL). */
  publicUrl: string;
  /** False when publicUrl was derived from HOST and PORT (then the bound address is more exact). */
  publicUrlSet: boolean;
  logLevel: string;
  /** Log one line per request (off in benchmarks to measure the server, not the log sink). */
  logRequests: boolean;
  bodyLimitBytes: number;
  /** Import bodies spooled to disk at once, in all (each import takes at most 2 GiB). */
  importSpoolMaxBytes: number;
  seedDemo: boolean;
  rateLimit: { perSecond: number; perDay: number };
  /**
   * Per client address: requests a second to routes anyone may call (token, pages, docs), and
   * failed authentications a minute (per address, and per username or client id); per signed-in
   * portal session, requests a second.
   */
  clientLimits: { publicPerSecond: number; authFailuresPerMinute: number; portalPerSecond: number };
  /**
   * Which proxies in front of pbs are believed about the client's address (X-Forwarded-For):
   * false (none: the connection's address is the client), a number of hops, or addresses and
   * CIDR ranges. Per-address limits count the client, not the proxy, only when this is set.
   */
  trustProxy: false | number | string[];
  /** Whole-request and header deadlines: a client that sends slowly is cut off (slowloris). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** How long a verified credential is trusted from memory before it is looked up again. */
  authCacheMs: number;
  idempotencyTtlMs: number;
  /** How long (wall time) a request holding an Idempotency-Key may run before a retry takes over. */
  idempotencyTakeoverMs: number;
  /**
   * What this process does (docs/scaling.md): `all` answers requests and runs background work;
   * `api` only answers requests; `worker` only runs background work (its port answers
   * /healthz, /readyz and /metrics).
   */
  role: ProcessRole;
  /**
   * API processes `pbs serve` starts on one port (Node's cluster module); above 1 the role `all`
   * becomes that many `api` processes plus one `worker` process.
   */
  processes: number;
  /** Background work in this process: tasks, schedules, the event relay and webhook delivery. */
  tasks: { enabled: boolean; pollMs: number; batchSize: number; leaseMs: number };
  /** How often a process re-reads the shared sandbox clock written by another process. */
  clockSyncMs: number;
  shutdownGraceMs: number;
  /** Openings returns slots within ± this many minutes of the asked time. */
  openingsWindowMinutes: number;
  /**
   * Computed days of availability kept in memory, in all (see OccupancyIndex), a few kB each
   * with their openings JSON: the default holds three weeks of 1,000 restaurants plus a metro's
   * search at ~200 MB at most; unbounded, random openings over 10,000 restaurants grew the heap
   * past 600 MB and old-generation GC into the tail latency.
   */
  rememberedDays: number;
  /** How long (pbs time) an advertising job stays PROCESSING before it is applied, so clients see 202 at least once. */
  adJobDelayMs: number;
  /** How long another process's change to businesses or inventory may go unseen (bookings never are). */
  catalogMaxStaleMs: number;
  /** Search records kept as JSON parts for building answers (docs/search.md). */
  searchRecordsKept: number;
  /**
   * Private reviews answer their list nested as `{"reviews": {"review": […]}}`, the published
   * sample's form, instead of `{"reviews": […]}` (a request chooses with `nested=true|false`).
   */
  reviewsNested: boolean;
  /** What partners sent and were answered (docs/request-log.md). */
  requestLog: RequestLogConfig;
  /** How long a partner portal session lasts (pbs time), ms. */
  portalSessionMs: number;
  /** How long an operator's console session lasts (wall time), ms. */
  operatorSessionMs: number;
  /** How long the audit trail keeps a record (wall time), days. */
  auditRetentionDays: number;
  /** Operator single sign-on through an OpenID Connect provider (docs/security.md "Single sign-on"); absent: none. */
  oidc?: OidcConfig;
  webhooks: {
    /** A receiver must answer within this (spec: 10 seconds). */
    timeoutMs: number;
    /** Seconds between attempts; the last repeats until the retry window ends. */
    retryScheduleSeconds: number[];
    retryWindowHours: number;
    allowPrivateAddresses: boolean;
    perEndpointConcurrency: number;
    maxInFlight: number;
    pollMs: number;
  };
}

export type ProcessRole = (typeof ROLES)[number];
export const ROLES = ['all', 'api', 'worker'] as const;

export { ConfigError } from './config-error.js';
export type { OidcConfig } from './oidc-config.js';

function schedule(raw: string): number[] {
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v <= 0)) {
    throw new ConfigError(`PBS_WEBHOOK_RETRY_SCHEDULE must be comma-separated positive seconds, got "${raw}"`);
  }
  return values;
}

function secretKey(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32) throw new ConfigError('PBS_SECRET_KEY must be at least 32 characters (e.g. `openssl rand -base64 48`)');
  return raw;
}

function addressOrRange(entry: string): boolean {
  if (!entry.includes('/')) return ipaddr.isValid(entry);
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** PBS_TRUST_PROXY: unset (none), a number of hops, or a comma list of addresses and CIDR ranges. */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw.trim() === '' || /^(0|false|no|off)$/i.test(raw.trim())) return false;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!addressOrRange(entry))
      throw new ConfigError(`PBS_TRUST_PROXY must be a number of hops or comma-separated addresses and CIDR ranges, got "${entry}"`);
  }
  return entries;
}

/** The configuration of one process of a cluster, given its role (see `serve`). */
export function withRole(config: Config, role: ProcessRole): Config {
  const enabled = role === 'api' ? false : role === 'worker' ? true : config.tasks.enabled;
  return { ...config, role, processes: 1, tasks: { ...config.tasks, enabled } };
}

/** Flags (`--port 9000`) override environment variables of the same meaning. */
export function loadConfig(env: Env = process.env, flags: Record<string, string> = {}): Config {
  const merged: Env = { ...env };
  // Before background work was called tasks its settings were PBS_JOBS*; those names still work.
  for (const suffix of ['', '_POLL_MS', '_BATCH', '_LEASE_MS']) {
    if (merged[`PBS_TASKS${suffix}`] === undefined && merged[`PBS_JOBS${suffix}`] !== undefined)
      merged[`PBS_TASKS${suffix}`] = merged[`PBS_JOBS${suffix}`];
  }
  const flagToEnv: Record<string, string> = {
    port: 'PORT',
    host: 'HOST',
    'database-url': 'DATABASE_URL',
    'data-dir': 'PBS_DATA_DIR',
    sandbox: 'PBS_SANDBOX',
    'log-level': 'PBS_LOG_LEVEL',
    role: 'PBS_ROLE',
    processes: 'PBS_PROCESSES',
  };
  for (const [flag, value] of Object.entries(flags)) {
    const name = flagToEnv[flag];
    if (name) merged[name] = value;
  }
  const role = merged.PBS_ROLE || 'all';
  if (!isOneOf(ROLES, role)) throw new ConfigError(`PBS_ROLE must be one of ${ROLES.join(', ')}, got "${merged.PBS_ROLE}"`);
  const processes = int(merged, 'PBS_PROCESSES', 1, 1);
  if (processes > 64) throw new ConfigError(`PBS_PROCESSES must be at most 64, got ${processes}`);
  const tasksEnabled = bool(merged, 'PBS_TASKS', true);
  if (role === 'worker' && !tasksEnabled)
    throw new ConfigError('PBS_ROLE=worker runs background work: it cannot be combined with PBS_TASKS=0');
  const port = int(merged, 'PORT', 8080);
  const dataDir = path.resolve(merged.PBS_DATA_DIR || './data');
  const databaseUrl = merged.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const sandbox = bool(merged, 'PBS_SANDBOX', true);
  // The sandbox prints its secrets and serves a demo partner: this machine only, unless HOST says
  // otherwise (the container image sets HOST=0.0.0.0). Production listens on every interface.
  const host = merged.HOST || (sandbox ? '127.0.0.1' : '0.0.0.0');
  const visibleHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  // Production keeps no secret it could derive tokens from in the database (see SecretKeys).
  if (!sandbox && !merged.PBS_SECRET_KEY) {
    throw new ConfigError(
      'PBS_SANDBOX=0 needs PBS_SECRET_KEY (32+ random characters, e.g. `openssl rand -base64 48`); see docs/security.md',
    );
  }
  // A guessable operator token is the whole operator API; the sandbox generates a random one.
  if (!sandbox && merged.PBS_ADMIN_TOKEN && merged.PBS_ADMIN_TOKEN !== 'off' && merged.PBS_ADMIN_TOKEN.length < 32) {
    throw new ConfigError(
      'PBS_ADMIN_TOKEN must be at least 32 characters in production (e.g. `openssl rand -base64 32`); see docs/security.md',
    );
  }
  return {
    port,
    host,
    databaseUrl,
    dataDir,
    sqlitePath: merged.PBS_SQLITE_PATH || path.join(dataDir, 'pbs.sqlite'),
    pgPoolSize: int(merged, 'PBS_PG_POOL_SIZE', 20, 1),
    dbTimeoutMs: int(merged, 'PBS_DB_TIMEOUT_MS', 10_000, 100),
    dbStatementTimeoutMs: int(merged, 'PBS_DB_STATEMENT_TIMEOUT_MS', 30_000, 0),
    sandbox,
    adminToken: merged.PBS_ADMIN_TOKEN || undefined,
    metricsToken: merged.PBS_METRICS_TOKEN || undefined,
    secretKey: secretKey(merged.PBS_SECRET_KEY),
    publicUrl: (merged.PBS_PUBLIC_URL || `http://${visibleHost}:${port}`).replace(/\/$/, ''),
    publicUrlSet: Boolean(merged.PBS_PUBLIC_URL),
    logLevel: merged.PBS_LOG_LEVEL || 'info',
    logRequests: bool(merged, 'PBS_LOG_REQUESTS', true),
    bodyLimitBytes: int(merged, 'PBS_BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    importSpoolMaxBytes: int(merged, 'PBS_IMPORT_SPOOL_MAX_BYTES', 4 * 1024 ** 3, 1024),
    // A production server starts empty: the demo dataset and its partner are for the sandbox.
    seedDemo: bool(merged, 'PBS_SEED_DEMO', sandbox),
    rateLimit: {
      perSecond: int(merged, 'PBS_RATE_LIMIT_PER_SECOND', 50, 1),
      perDay: int(merged, 'PBS_RATE_LIMIT_PER_DAY', 25000, 1),
    },
    clientLimits: {
      publicPerSecond: int(merged, 'PBS_PUBLIC_RATE_LIMIT_PER_SECOND', 20, 1),
      // A signed-in portal session's own: its pages load several lists at once.
      portalPerSecond: int(merged, 'PBS_PORTAL_RATE_LIMIT_PER_SECOND', 50, 1),
      authFailuresPerMinute: int(merged, 'PBS_AUTH_FAILURES_PER_MINUTE', 10, 1),
    },
    trustProxy: trustProxy(merged.PBS_TRUST_PROXY),
    requestTimeoutMs: int(merged, 'PBS_REQUEST_TIMEOUT_MS', 30_000, 1000),
    headersTimeoutMs: Math.min(int(merged, 'PBS_HEADERS_TIMEOUT_MS', 10_000, 1000), int(merged, 'PBS_REQUEST_TIMEOUT_MS', 30_000, 1000)),
    authCacheMs: int(merged, 'PBS_AUTH_CACHE_MS', 2000),
    idempotencyTtlMs: int(merged, 'PBS_IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 1) * 1000,
    idempotencyTakeoverMs: int(merged, 'PBS_IDEMPOTENCY_TAKEOVER_MS', 60_000, 100),
    tasks: {
      // An API process leaves background work to the worker processes.
      enabled: tasksEnabled && role !== 'api',
      pollMs: int(merged, 'PBS_TASKS_POLL_MS', 500, 10),
      batchSize: int(merged, 'PBS_TASKS_BATCH', 20, 1),
      leaseMs: int(merged, 'PBS_TASKS_LEASE_MS', 60_000, 100),
    },
    clockSyncMs: int(merged, 'PBS_CLOCK_SYNC_MS', 1000, 0),
    shutdownGraceMs: int(merged, 'PBS_SHUTDOWN_GRACE_MS', 10_000, 0),
    openingsWindowMinutes: int(merged, 'PBS_OPENINGS_WINDOW_MINUTES', 60, 0),
    rememberedDays: int(merged, 'PBS_REMEMBERED_DAYS', 50_000, 1),
    catalogMaxStaleMs: int(merged, 'PBS_CATALOG_MAX_STALE_MS', 250, 0),
    searchRecordsKept: int(merged, 'PBS_SEARCH_RECORDS_KEPT', 50_000, 100),
    adJobDelayMs: int(merged, 'PBS_AD_JOB_DELAY_MS', 2000, 0),
    reviewsNested: bool(merged, 'PBS_REVIEWS_NESTED', false),
    requestLog: requestLogConfig(merged, sandbox),
    portalSessionMs: int(merged, 'PBS_PORTAL_SESSION_HOURS', 7 * 24, 1) * 3_600_000,
    operatorSessionMs: int(merged, 'PBS_OPERATOR_SESSION_HOURS', 12, 1) * 3_600_000,
    // More than a year by default: an audit asks about the last twelve months.
    auditRetentionDays: int(merged, 'PBS_AUDIT_RETENTION_DAYS', 400, 1),
    oidc: oidcConfig(merged),
    role,
    processes,
    webhooks: {
      timeoutMs: int(merged, 'PBS_WEBHOOK_TIMEOUT_MS', 10_000, 100),
      retryScheduleSeconds: schedule(merged.PBS_WEBHOOK_RETRY_SCHEDULE ?? '5,30,120,600,1800,3600,7200,14400,21600'),
      retryWindowHours: int(merged, 'PBS_WEBHOOK_RETRY_HOURS', 24, 1),
      allowPrivateAddresses: bool(merged, 'PBS_WEBHOOK_ALLOW_PRIVATE', false),
      perEndpointConcurrency: int(merged, 'PBS_WEBHOOK_ENDPOINT_CONCURRENCY', 8, 1),
      maxInFlight: int(merged, 'PBS_WEBHOOK_MAX_IN_FLIGHT', 64, 1),
      pollMs: int(merged, 'PBS_WEBHOOK_POLL_MS', 500, 10),
    },
  };
}
