import fs from 'node:fs';
import { createPbs, DatabaseUnavailable, resetAdminToken, type Pbs } from './app.js';
import { demoCredentialsFile, seedDemo, writeDemoCredentials } from './demo/seed.js';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { ApiError } from './platform/errors.js';
import { need, optionalInt, UsageError } from './commands/args.js';
import { serve } from './serve.js';
import { listenForWebhooks } from './webhooks/listen.js';

const USAGE = `pbs — Partner Business Services server

Usage:
  pbs serve [--port N] [--host H] [--database-url URL] [--data-dir DIR] [--role all|api|worker] [--processes N]
  pbs migrate
  pbs seed                                  load the demo dataset and demo partner
  pbs admin-token reset                     replace the operator token (prints the new one)
  pbs partner create --name NAME [--interfaces reservations,waitlist,…]
  pbs partner list | show ID | disable ID | enable ID
  pbs partner interface ID INTERFACE on|off [--per-second N] [--per-day N]
  pbs partner credential issue ID --kind api_key|basic|oauth_client [--label L] [--username U]
  pbs partner credential list ID
  pbs partner credential rotate CREDENTIAL_ID [--grace-seconds N]
  pbs partner credential revoke CREDENTIAL_ID
  pbs partner link ID BUSINESS_ID [--comment TEXT] | unlink ID BUSINESS_ID | links ID
  pbs partner import-links ID FILE.csv      onboarding CSV: business id, optional comment
  pbs partner portal-link ID | portal-revoke ID   a single-use portal sign-in link (15 minutes); end its portal sessions
  pbs business upsert FILE.json | import FILE.jsonl|FILE.csv [--format csv|jsonl] | list [--city C] | show ID
  pbs business reservation-settings ID [FILE.json]   show, or set from a file, a restaurant's inventory
  pbs business import-reservation-settings FILE.jsonl  {"business_id", "settings"} per line
  pbs reservation cancel RESERVATION_ID              cancel on behalf of the restaurant
  pbs waitlist show BUSINESS_ID | configure BUSINESS_ID FILE.json | open BUSINESS_ID | close BUSINESS_ID [--reason special_event]
  pbs waitlist walk-in BUSINESS_ID --party-size N [--name NAME] [--phone +1…] | queue BUSINESS_ID
  pbs waitlist notify|seat|no-show|arrive VISIT_ID     the restaurant side's moves
  pbs advertising programs [--partner ID] [--business ID] [--state ACTIVE|ENDED|CANCELED] | jobs [--partner ID] [--status S]
  pbs advertising features PROGRAM_ID                the program's features as its partner set them
  pbs advertising hold|release|complete JOB_ID       sandbox control of a job (complete applies it now)
  pbs advertising hold-new-jobs on|off               keep every new job PROCESSING until released
  pbs advertising flags BUSINESS_ID [--removed-from-search true|false] [--restricted true|false]
  pbs advertising category-policy [decline CATEGORY [--reason TEXT] | allow CATEGORY]
  pbs advertising promotion list | set CODE [--types CPC,BP] [--min-budget CENTS] [--max-budget CENTS] [--months 6] [--active true|false]
  pbs advertising import-metrics FILE.jsonl          {"program_id", "date", "spend", "billed_clicks", "billed_impressions"} per line
  pbs review add BUSINESS_ID --rating 1-5 --text TEXT [--locale en_US] --user "NAME" [--user-id ID] [--user-image URL] [--time ISO] [--id ID]
  pbs review edit REVIEW_ID [--rating N] [--text TEXT [--locale L]] [--user NAME] [--time ISO] | remove REVIEW_ID | show REVIEW_ID
  pbs review respond REVIEW_ID --text TEXT --name NAME --role OWNER|MANAGER|CUSTOMER_SERVICE|EMPLOYEE [--photo URL] [--time ISO]
  pbs review unrespond REVIEW_ID | list BUSINESS_ID [--limit N] [--offset N]
  pbs review import FILE.jsonl [--no-notify]         one review with its "business_id" per line (--no-notify: no webhooks)
  pbs engagement import FILE.jsonl                   {"business_id", "week", "page_views", …} per line; then scores the weeks
  pbs engagement weeks | score [WEEK] | show BUSINESS_ID   weeks and their scoring; score WEEK (or every changed week) now
  pbs webhook set PARTNER_ID --url URL --client-id ID [--events NEW_EVENT,…]
  pbs webhook show | verify | rotate-secret | remove PARTNER_ID
  pbs webhook deliveries [--partner ID] [--status pending|delivered|failed] [--limit N]
  pbs webhook redeliver DELIVERY_ID | redeliver-failed --from ISO --to ISO [--partner ID]
  pbs event lead|license|ingestion BUSINESS_ID [--lead-id ID] [--text TEXT] [--status S] [--license-number N] [--job-id ID]
  pbs owner create --name NAME --email EMAIL [--businesses ID,ID] [--id ID] | list [--business ID] | show ID
  pbs owner link|unlink USER_ID BUSINESS_ID | remove USER_ID | import FILE.jsonl
  pbs owner password USER_ID --password-file FILE | --clear   (their sign-in outside the sandbox)
  pbs oauth redirect-uris PARTNER_ID [--set URL,URL | --clear]   (where its app receives business users' codes)
  pbs lead list BUSINESS_ID | show LEAD_ID | say LEAD_ID [--text TEXT] | opt-in LEAD_ID [--phone +1…] | opt-out LEAD_ID
  pbs logs tail [--partner ID] [--status 4xx|404] [--operation "POST /v3/…"] [--json] [--count N] [--after ENTRY_ID]
                                            new partner requests as pbs answers them (Ctrl-C ends)
  pbs logs list [same filters] [--limit N] | show ENTRY_ID   the request log, newest first; one entry whole
  pbs logs errors [--partner ID] [--from ISO] [--to ISO]    errors grouped by code and operation, with hints
  pbs fault add PARTNER_ID --operation "POST /v3/…" [--status 503] [--code C] [--retry-after S] | [--latency-ms N] | [--drop]
                 [--business ID] [--count N] [--percent P] [--expires-in S]   (sandbox) make matching calls fail
  pbs fault list [PARTNER_ID] | remove FAULT_ID
  pbs webhook-listen [--port 9999] [--host 127.0.0.1] [--secret whsec_…]
                                            a receiver for trying webhooks: answers verification,
                                            prints each delivery and checks it as the Standard
                                            Webhooks libraries do (signature, timestamp within 5 min)

Configuration comes from the environment (see README); flags override it.`;

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

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = 'true';
    } else positional.push(arg);
  }
  return { positional, flags };
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function withPbs<T>(config: Config, run: (pbs: Pbs) => Promise<T>): Promise<T> {
  const pbs = await createPbs({ ...config, logLevel: 'warn' }, { issueAdminToken: false, http: false });
  try {
    return await run(pbs);
  } finally {
    await pbs.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [command, ...rest] = positional;
  try {
    // --role and --processes configure `serve`; other commands have flags of those names (`review respond --role`).
    const { role: _role, processes: _processes, ...otherFlags } = flags;
    const config = loadConfig(process.env, command === 'serve' ? flags : otherFlags);
    switch (command) {
      case 'serve':
        await serve(config);
        return -1; // keep running
      case 'migrate':
        await withPbs(config, async (pbs) => print({ migrated: true, database: pbs.ctx.database.description }));
        return 0;
      case 'seed':
        await withPbs(config, async (pbs) => {
          const result = await seedDemo(pbs.ctx.database.db, pbs.services);
          if (result.credentials && config.sandbox)
            writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { ...result.credentials });
          print(result);
        });
        return 0;
      case 'admin-token':
        if (rest[0] !== 'reset') throw new UsageError('usage: pbs admin-token reset');
        if (config.adminToken) throw new UsageError('PBS_ADMIN_TOKEN is set: change it there instead');
        await withPbs(config, async (pbs) => {
          const adminToken = await resetAdminToken(pbs.ctx.database);
          // The sandbox's saved secrets follow, so walk-throughs that read them keep working.
          const saved = config.sandbox
            ? writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { admin_token: adminToken })
            : undefined;
          print({ admin_token: adminToken, ...(saved ? { saved_in: saved } : {}) });
        });
        return 0;
      case 'webhook-listen': {
        const port = optionalInt(flags.port, '--port') ?? 9999;
        const listener = await listenForWebhooks({
          port,
          host: flags.host ?? '127.0.0.1',
          secret: flags.secret ?? process.env.PBS_WEBHOOK_SECRET,
        });
        process.stdout.write(`listening for webhooks on ${listener.url}${flags.secret ? '' : ' (give --secret to check signatures)'}\n`);
        const stop = () => void listener.close().then(() => process.exit(0));
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
        // Started through npx (npm exec → sh → this), a kill or the end of the starting shell
        // reaches npx, not this process: leave when the chain of processes above us changes.
        const started = ancestors();
        setInterval(() => ancestors().join() !== started.join() && stop(), 500).unref();
        return -1; // keep running
      }
      case 'reservation':
        if (rest[0] !== 'cancel') throw new UsageError('usage: pbs reservation cancel RESERVATION_ID');
        await withPbs(config, async (pbs) => {
          const row = await pbs.services.reservations.bookings.cancelByRestaurant(need(rest[1], 'reservation id'));
          print({ reservation_id: row.id, status: row.status, canceled_by: row.canceled_by });
        });
        return 0;
      case undefined:
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command ? 0 : 2;
      default:
        // The families' command groups (each module declares its own: src/commands/).
        if (!/^[a-z][a-z-]*$/.test(command)) throw new UsageError(`unknown command ${command}`);
        await withPbs(config, async (pbs) => {
          const group = pbs.commands.get(command);
          if (!group) throw new UsageError(`unknown command ${command}`);
          print(await group(rest, flags));
        });
        return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pbs: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`pbs: ${error.code}: ${error.message}\n`);
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
