import fs from 'node:fs';
import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { createPbs, importSpoolOf, type Pbs } from './app.js';
import { claimDemoSeed, demoCredentialsFile, releaseDemoSeed, seedDemo, writeDemoCredentials } from './demo/seed.js';
import { ConfigError, ROLES, withRole, type Config, type ProcessRole } from './platform/config.js';
import { isOneOf } from './platform/query.js';
import { weakSecretProblem } from './platform/secret-strength.js';

/** The environment variable a cluster's primary sets to give each forked process its role. */
const CLUSTER_ROLE = 'PBS_CLUSTER_ROLE';
/** A process of the cluster that dies is started again after this long (no tight crash loop). */
const RESTART_DELAY_MS = 1000;

/**
 * `pbs serve`: one process (the default), or with PBS_PROCESSES > 1 a cluster — API processes
 * sharing the port through Node's cluster module and, for the role `all`, one worker process for
 * background work (docs/scaling.md).
 */
export async function serve(config: Config): Promise<void> {
  // Production prints no secret: the operator brings the token (and PBS_SECRET_KEY, see loadConfig).
  if (!config.sandbox && !config.adminToken) {
    throw new ConfigError('PBS_SANDBOX=0 needs PBS_ADMIN_TOKEN: production generates and prints no secrets; see docs/security.md');
  }
  if (cluster.isWorker) return serveInCluster(config);
  // Once, in the process that starts: a cluster's processes were started by one that checked.
  if (!config.sandbox) await refuseWeakSecrets(config);
  if (config.processes > 1) return serveCluster(config);
  const pbs = await createPbs(config);
  await clearSpoolLeftovers(pbs, config);
  const intro = await introduce(pbs, config);
  const address = await pbs.listen();
  // With PORT=0 or a wildcard HOST the bound address says more than the configured one.
  process.stdout.write(banner(config, baseUrl(config, address), intro));
  stopOnSignals(config, (signal) => {
    pbs.app.log.info({ signal }, 'shutting down');
    return pbs.close();
  });
}

/** Production refuses secrets that are easy to guess, however long (platform/secret-strength.ts). */
async function refuseWeakSecrets(config: Config): Promise<void> {
  // `off`: no bootstrap token at all (operators sign in with their accounts).
  const secrets = {
    PBS_ADMIN_TOKEN: config.adminToken === 'off' ? undefined : config.adminToken,
    PBS_SECRET_KEY: config.secretKey,
    PBS_METRICS_TOKEN: config.metricsToken,
  };
  for (const [name, secret] of Object.entries(secrets)) {
    const problem = secret === undefined ? undefined : await weakSecretProblem(name, secret);
    if (problem) throw new ConfigError(problem);
  }
}

/** Import bodies a stopped process left spooled on disk are removed as pbs starts (a 1,000,000-line import is 1.5 GB). */
async function clearSpoolLeftovers(pbs: Pbs, config: Config): Promise<void> {
  const removed = await importSpoolOf(config).clearLeftovers();
  if (removed > 0) pbs.app.log.warn({ removed }, 'removed import files an earlier process left spooled');
}

interface Introduction {
  database: string;
  lines: string[];
}

/** Seeds the demo dataset on a sandbox's first start and keeps its secrets; answers the lines to print. */
async function introduce(pbs: Pbs, config: Config): Promise<Introduction> {
  const lines: string[] = [];
  let demo: Awaited<ReturnType<typeof seedDemo>> | undefined;
  const db = pbs.ctx.database.db;
  if (config.seedDemo && (await pbs.services.businesses.store().count()) === 0 && (await claimDemoSeed(db))) {
    try {
      // Counted again under the claim: another process may have seeded since.
      if ((await pbs.services.businesses.store().count()) === 0) demo = await seedDemo(db, pbs.services);
    } finally {
      await releaseDemoSeed(db);
    }
  }
  const secrets: Record<string, string> = {};
  if (pbs.generatedAdminToken) secrets.admin_token = pbs.generatedAdminToken;
  if (demo?.credentials) Object.assign(secrets, demo.credentials);
  const secretsFile =
    config.sandbox && Object.keys(secrets).length > 0
      ? writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), secrets)
      : undefined;
  if (pbs.generatedAdminToken) lines.push(`  admin token (shown once): ${pbs.generatedAdminToken}`);
  if (demo?.credentials) {
    const c = demo.credentials;
    lines.push(`  demo data: ${demo.businesses} restaurants in San Francisco and Toronto`);
    lines.push(`  demo partner ${c.partner_id}, every interface enabled (secrets shown once):`);
    lines.push(`    API key:          ${c.api_key}`);
    lines.push(`    basic username:   ${c.basic_username}   password: ${c.basic_password}`);
    lines.push(`    OAuth client id:  ${c.oauth_client_id}   secret: ${c.oauth_client_secret}`);
    lines.push(`  try: curl -H "Authorization: Bearer ${c.api_key}" {base}/v3/partner/restaurants`);
  }
  if (secretsFile) lines.push(`  (sandbox: these secrets are also saved in ${secretsFile})`);
  else if (config.sandbox) {
    // A later start shows no secret: it says where the first start kept them.
    const saved = demoCredentialsFile(config.dataDir, config.databaseUrl);
    if (fs.existsSync(saved)) lines.push(`  sandbox secrets (operator token, demo partner): ${saved}`);
  }
  return { database: pbs.ctx.database.description, lines };
}

function baseUrl(config: Config, address: string): string {
  return config.publicUrlSet ? config.publicUrl : address.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//localhost');
}

function banner(config: Config, base: string, intro: Introduction, processes?: string): string {
  const lines = [`pbs ${config.sandbox ? '(sandbox) ' : ''}listening on ${base}`, `  database: ${intro.database}`];
  if (processes) lines.push(`  processes: ${processes}`);
  lines.push(`  API docs: ${base}/docs   OpenAPI: ${base}/openapi.json`);
  if (config.role !== 'worker') {
    lines.push(`  operator console: ${base}/console (sign in with the operator token)`);
    lines.push(`  partner portal:   ${base}/portal (a partner signs in with a portal link${config.sandbox ? ' or its API key' : ''})`);
  }
  lines.push(...intro.lines.map((line) => line.replace('{base}', base)));
  return `${lines.join('\n')}\n`;
}

/** SIGTERM and SIGINT stop gracefully; past the grace period the process exits anyway. */
function stopOnSignals(config: Config, stop: (signal: string) => Promise<void>, signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      process.stderr.write('pbs: graceful shutdown timed out\n');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`pbs: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, () => onSignal(signal));
}

/**
 * The cluster's primary: migrates, seeds and makes the admin token once (so the processes do not
 * race for them), then forks the processes, prints the banner when every API process listens,
 * starts a process again when one dies, and stops them all on SIGTERM.
 */
async function serveCluster(config: Config): Promise<void> {
  const preparing = await createPbs(withRole(config, 'worker'));
  // Before any process is forked: none of them is importing yet.
  await clearSpoolLeftovers(preparing, config);
  const intro = await introduce(preparing, config);
  await preparing.close();

  // `all` becomes API processes plus one worker (none when PBS_TASKS=0 turned background work off).
  const roles: ProcessRole[] =
    config.role === 'all'
      ? [...Array<ProcessRole>(config.processes).fill('api'), ...(config.tasks.enabled ? (['worker'] as const) : [])]
      : Array<ProcessRole>(config.processes).fill(config.role);
  const apiCount = roles.filter((role) => role !== 'worker').length;
  const roleOf = new Map<Worker, ProcessRole>();
  let stopping = false;
  let listening = 0;
  let announced = false;

  const fork = (role: ProcessRole) => {
    // Only the primary seeds: a forked process finds the data there.
    const worker = cluster.fork({ [CLUSTER_ROLE]: role, PBS_SEED_DEMO: '0' });
    roleOf.set(worker, role);
  };
  cluster.on('listening', (_worker, address: AddressInfo | string) => {
    listening += 1;
    if (announced || listening < apiCount) return;
    announced = true;
    const port = typeof address === 'string' ? config.port : address.port;
    const host =
      config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    const counts = `${apiCount} API${roles.length > apiCount ? ` + ${roles.length - apiCount} worker` : ''} (cluster primary pid ${process.pid})`;
    process.stdout.write(banner(config, baseUrl(config, `http://${host}:${port}`), intro, counts));
  });
  cluster.on('exit', (worker, code, signal) => {
    const role = roleOf.get(worker) ?? 'api';
    roleOf.delete(worker);
    if (stopping) {
      if (roleOf.size === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (!announced) {
      // A process that dies before the cluster is up (the port is taken, the database refuses):
      // starting it again would fail the same way, so the whole start fails, as one process would.
      process.stderr.write(`pbs: a ${role} process exited while starting (${signal ?? code}); stopping\n`);
      stopping = true;
      for (const other of roleOf.keys()) other.process.kill('SIGTERM');
      process.exitCode = 1;
      if (roleOf.size === 0) process.exit(1);
      return;
    }
    process.stderr.write(`pbs: a ${role} process (pid ${worker.process.pid}) exited (${signal ?? code}); starting another\n`);
    setTimeout(() => fork(role), RESTART_DELAY_MS);
  });
  for (const role of roles) fork(role);

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      process.stderr.write('pbs: graceful shutdown timed out\n');
      process.exit(1);
    }, config.shutdownGraceMs + 1000);
    force.unref();
    for (const worker of roleOf.keys()) worker.process.kill(signal);
    if (roleOf.size === 0) process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGTERM'));
}

/** A process forked by the primary: an API process shares the port; a worker process listens nowhere. */
async function serveInCluster(config: Config): Promise<void> {
  const named = process.env[CLUSTER_ROLE];
  const role: ProcessRole = isOneOf(ROLES, named) ? named : 'api';
  const pbs = await createPbs({ ...withRole(config, role), seedDemo: false }, { issueAdminToken: false });
  if (role === 'worker') pbs.startBackground();
  else await pbs.listen();
  // The primary sends SIGTERM. A terminal's Ctrl-C reaches the whole process group: the primary
  // coordinates that stop, so SIGINT is ignored here. Should the primary die, Node's cluster
  // module ends this process when the channel to it closes.
  stopOnSignals(config, () => pbs.close(), ['SIGTERM']);
  process.on('SIGINT', () => {});
}
