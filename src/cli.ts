import fs from 'node:fs';
import { createPbs, DatabaseUnavailable, resetAdminToken, type Pbs } from './app.js';
import { demoCredentialsFile, seedDemo, writeDemoCredentials } from './demo/seed.js';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { ApiError } from './platform/errors.js';
import { Command, CommanderError } from 'commander';
import { optionalInt, UsageError } from './commands/args.js';
import { addCommandGroup, flagsOf, type CommandGroupSpec } from './commands/command-line.js';
import { colourFor, printAnswer, red } from './commands/output.js';
import { advertisingCommands } from './commands/advertising.js';
import { businessCommands } from './commands/business.js';
import { engagementCommands } from './commands/engagement.js';
import { eventCommands } from './commands/event.js';
import { faultCommands } from './commands/fault.js';
import { leadCommands } from './commands/lead.js';
import { logsCommands } from './commands/logs.js';
import { auditCommands, operatorCommands } from './commands/team.js';
import { auditDraft, closeAudited, runAudited } from './platform/audit/audit-trail.js';
import { CLI_OPERATOR } from './platform/auth/operator.js';
import { oauthCommands, ownerCommands } from './commands/owner.js';
import { partnerCommands } from './commands/partner.js';
import { reviewCommands } from './commands/review.js';
import { waitlistCommands } from './commands/waitlist.js';
import { webhookCommands } from './commands/webhook.js';
import { serve } from './serve.js';
import { listenForWebhooks } from './webhooks/listen.js';

/** This process's parent, grandparent and great-grandparent ids (Linux /proc; elsewhere the parent only). */
function ancestors(): number[] {
  const chain = [process.ppid];
  try {
    for (let i = 0; i < 2; i++) {
      const stat = fs.readFileSync(`/proc/${chain[chain.length - 1]}/stat`, 'utf8');
      chain.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    }
  } catch {
    // no /proc, or an ancestor already gone (which the comparison then notices)
  }
  return chain;
}

/** Said after the root help: where configuration comes from. */
const CONFIGURATION_HELP = `
Configuration comes from the environment (see README); --database-url and --data-dir override it.
Answers are tables on a terminal and JSON elsewhere (--json: always JSON).`;

/** The families' command groups, declared for parsing and help (src/commands/). */
const GROUPS: readonly CommandGroupSpec[] = [
  partnerCommands,
  businessCommands,
  waitlistCommands,
  advertisingCommands,
  reviewCommands,
  engagementCommands,
  webhookCommands,
  eventCommands,
  ownerCommands,
  oauthCommands,
  leadCommands,
  logsCommands,
  faultCommands,
  operatorCommands,
  auditCommands,
];

async function withPbs<T>(config: Config, run: (pbs: Pbs) => Promise<T>): Promise<T> {
  const pbs = await createPbs({ ...config, logLevel: 'warn' }, { issueAdminToken: false, http: false });
  try {
    return await run(pbs);
  } finally {
    await pbs.close();
  }
}

/** The command line as commander reads it; `finish` records the exit code (-1: keep running). */
export function commandLine(finish: (code: number) => void): Command {
  const root = new Command('pbs')
    .description('pbs — Partner Business Services server')
    .option('--json', 'print answers as JSON, also on a terminal')
    .option('--database-url <url>', 'PostgreSQL (default: SQLite in the data directory)')
    .option('--data-dir <dir>', 'where SQLite and the sandbox’s files live (default ./data)')
    .addHelpText('after', CONFIGURATION_HELP)
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (text, write) => write(red(text, colourFor(process.stderr))) })
    .exitOverride();
  const configOf = (command: Command) => loadConfig(process.env, configFlags(flagsOf(command)));
  const print = (command: Command, value: unknown) => printAnswer(value, { json: flagsOf(command).json !== undefined });
  /** A command that opens the database, does one thing and prints its answer. */
  const once = (command: Command, run: (pbs: Pbs, config: Config) => Promise<unknown>) => {
    const config = configOf(command);
    return withPbs(config, async (pbs) => print(command, await run(pbs, config))).then(() => finish(0));
  };

  root
    .command('serve')
    .description('run the server')
    .option('--port <n>', 'the port (default 8080; PORT)')
    .option('--host <host>', 'the address to listen on (HOST)')
    .option('--role <role>', 'all, api or worker (PBS_ROLE)')
    .option('--processes <n>', 'processes sharing the port (PBS_PROCESSES)')
    .action(async (_options, command: Command) => {
      await serve(loadConfig(process.env, flagsOf(command)));
      finish(-1);
    });
  root
    .command('migrate')
    .description('apply the database migrations without starting')
    .action((_options, command: Command) => once(command, async (pbs) => ({ migrated: true, database: pbs.ctx.database.description })));
  root
    .command('seed')
    .description('load the demo dataset and demo partner')
    .action((_options, command: Command) =>
      once(command, async (pbs, config) => {
        const result = await seedDemo(pbs.ctx.database.db, pbs.services);
        if (result.credentials && config.sandbox)
          writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { ...result.credentials });
        return result;
      }),
    );
  root
    .command('admin-token')
    .description('the operator token')
    .command('reset')
    .description('replace the operator token (prints the new one)')
    .action((_options, command: Command) =>
      once(command, async (pbs, config) => {
        if (config.adminToken) throw new UsageError('PBS_ADMIN_TOKEN is set: change it there instead');
        const adminToken = await resetAdminToken(pbs.ctx.database);
        // The sandbox's saved secrets follow, so walk-throughs that read them keep working.
        const saved = config.sandbox
          ? writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { admin_token: adminToken })
          : undefined;
        return { admin_token: adminToken, ...(saved ? { saved_in: saved } : {}) };
      }),
    );
  root
    .command('reservation')
    .description('reservations, on the restaurant’s side')
    .command('cancel')
    .argument('<reservation-id>')
    .description('cancel on behalf of the restaurant')
    .action((id: string, _options, command: Command) =>
      once(command, async (pbs) => {
        const row = await pbs.services.reservations.bookings.cancelByRestaurant(id);
        return { reservation_id: row.id, status: row.status, canceled_by: row.canceled_by };
      }),
    );
  root
    .command('webhook-listen')
    .description('a receiver for trying webhooks: answers verification, prints and checks each delivery (Standard Webhooks)')
    .option('--port <n>', 'the port (default 9999)')
    .option('--host <host>', 'the address (default 127.0.0.1)')
    .option('--secret <secret>', 'whsec_…: check signatures (PBS_WEBHOOK_SECRET)')
    .action(async (options: { port?: string; host?: string; secret?: string }) => {
      const secret = options.secret ?? process.env.PBS_WEBHOOK_SECRET;
      const listener = await listenForWebhooks({
        port: optionalInt(options.port, '--port') ?? 9999,
        host: options.host ?? '127.0.0.1',
        secret,
      });
      process.stdout.write(`listening for webhooks on ${listener.url}${secret ? '' : ' (give --secret to check signatures)'}\n`);
      const stop = () => void listener.close().then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      // Started through npx (npm exec → sh → this), a kill or the end of the starting shell
      // reaches npx, not this process: leave when the chain of processes above us changes.
      const started = ancestors();
      setInterval(() => ancestors().join() !== started.join() && stop(), 500).unref();
      finish(-1);
    });
  for (const group of GROUPS) {
    addCommandGroup(root, group, async (name, args, flags) => {
      const config = loadConfig(process.env, configFlags(flags));
      await withPbs(config, async (pbs) => {
        const run = pbs.commands.get(name);
        if (!run) throw new Error(`the ${name} commands are not set up`);
        // A change made here is in the audit trail as the CLI's (a shell on the server is trusted as the bootstrap token is).
        const draft = auditDraft(
          CLI_OPERATOR,
          { ip: 'local shell', method: 'CLI', url: '', routeUrl: `pbs ${name} ${args.join(' ')}`.trim(), params: {}, body: flags },
          Date.now(),
        );
        try {
          printAnswer(await runAudited(draft, () => run(args, flags)), { json: flags.json !== undefined });
        } finally {
          closeAudited(draft);
        }
      });
      finish(0);
    });
  }
  return root;
}

/** The flags every command shares that configure pbs (`serve` takes its own too). */
function configFlags(flags: Record<string, string>): Record<string, string> {
  const shared: Record<string, string> = {};
  for (const name of ['database-url', 'data-dir']) if (flags[name] !== undefined) shared[name] = flags[name];
  return shared;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const cli = commandLine((c) => (code = c));
  try {
    if (argv.length === 0) {
      cli.outputHelp({ error: true });
      return 2;
    }
    await cli.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for (0), or a command used wrongly: commander has said what (2).
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`${red('pbs:', colourFor(process.stderr))} ${error.message} (add --help for usage)\n`);
      return 2;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`${red('pbs:', colourFor(process.stderr))} ${error.code}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`pbs: configuration: ${error.message}\n`);
      return 2;
    }
    if (error instanceof DatabaseUnavailable) {
      process.stderr.write(`pbs: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
