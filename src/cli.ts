import fs from 'node:fs';
import { createPbs, DatabaseUnavailable, resetAdminToken, type Pbs } from './app.js';
import { demoCredentialsFile, seedDemo, writeDemoCredentials } from './demo/seed.js';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { ApiError } from './platform/errors.js';
import { parsePage } from './platform/paging.js';
import { need, optionalBool, optionalInt, UsageError } from './commands/args.js';
import { businessCommand } from './commands/business.js';
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
  pbs business upsert FILE.json | import FILE.jsonl | list [--city C] | show ID
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
  pbs event lead|license|ingestion BUSINESS_ID [--lead-id ID] [--status S] [--license-number N] [--job-id ID]
  pbs webhook-listen [--port 9999] [--host 127.0.0.1] [--secret whsec_…]
                                            a receiver for trying webhooks: answers verification,
                                            prints each delivery and checks its signature

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


async function partnerCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const { partners, credentials } = pbs.services;
  const [sub, a, b, c] = args;
  switch (sub) {
    case 'create':
      return partners.create({ name: need(flags.name, '--name'), interfaces: flags.interfaces ? flags.interfaces.split(',').map((s) => s.trim()) : [] });
    case 'list':
      return partners.list(optionalInt(flags.limit, '--limit') ?? 100, optionalInt(flags.offset, '--offset') ?? 0);
    case 'show':
      return partners.get(need(a, 'partner id'));
    case 'disable':
      return partners.setStatus(need(a, 'partner id'), 'disabled');
    case 'enable':
      return partners.setStatus(need(a, 'partner id'), 'active');
    case 'interface': {
      const state = need(c, 'on|off');
      if (state !== 'on' && state !== 'off') throw new UsageError('interface state must be on or off');
      return partners.setInterface(need(a, 'partner id'), need(b, 'interface'), {
        enabled: state === 'on',
        per_second: optionalInt(flags['per-second'], '--per-second'),
        per_day: optionalInt(flags['per-day'], '--per-day'),
      });
    }
    case 'credential': {
      switch (a) {
        case 'issue': {
          const kind = need(flags.kind, '--kind');
          if (kind !== 'api_key' && kind !== 'basic' && kind !== 'oauth_client') throw new UsageError('--kind must be api_key, basic or oauth_client');
          return credentials.issue(need(b, 'partner id'), { kind, label: flags.label, username: flags.username });
        }
        case 'list':
          return credentials.list(need(b, 'partner id'));
        case 'rotate':
          return credentials.rotate(need(b, 'credential id'), optionalInt(flags['grace-seconds'], '--grace-seconds') ?? 0);
        case 'revoke':
          return credentials.revoke(need(b, 'credential id'));
        default:
          throw new UsageError(`unknown credential command ${a ?? ''}`);
      }
    }
    case 'link':
      return partners.link(need(a, 'partner id'), need(b, 'business id'), flags.comment);
    case 'unlink':
      await partners.unlink(need(a, 'partner id'), need(b, 'business id'));
      return { unlinked: b };
    case 'links':
      return partners.listLinks(need(a, 'partner id'), optionalInt(flags.limit, '--limit') ?? 1000, optionalInt(flags.offset, '--offset') ?? 0);
    case 'import-links':
      return partners.importLinksCsv(need(a, 'partner id'), fs.readFileSync(need(b, 'CSV file'), 'utf8'));
    default:
      throw new UsageError(`unknown partner command ${sub ?? ''}`);
  }
}

async function waitlistCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const waitlist = pbs.services.waitlist.restaurant;
  const [sub, a, b] = args;
  switch (sub) {
    case 'show':
      return waitlist.config(need(a, 'business id'));
    case 'configure':
      return waitlist.setConfig(need(a, 'business id'), JSON.parse(fs.readFileSync(need(b, 'JSON file'), 'utf8')) as Record<string, unknown>);
    case 'open':
      return waitlist.setOpen(need(a, 'business id'), true);
    case 'close':
      return waitlist.setOpen(need(a, 'business id'), false, flags.reason);
    case 'walk-in':
      return waitlist.addWalkIn(need(a, 'business id'), { party_size: optionalInt(need(flags['party-size'], '--party-size'), '--party-size'), name: flags.name, phone: flags.phone });
    case 'queue':
      return waitlist.queue(need(a, 'business id'));
    case 'notify':
    case 'seat':
    case 'no-show':
    case 'arrive':
      return waitlist.act(need(a, 'visit id'), sub);
    default:
      throw new UsageError(`unknown waitlist command ${sub ?? ''}`);
  }
}

async function advertisingCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const operator = pbs.services.advertising.operator;
  const [sub, a, b] = args;
  const page = { limit: optionalInt(flags.limit, '--limit') ?? 50, offset: optionalInt(flags.offset, '--offset') ?? 0 };
  switch (sub) {
    case 'programs':
      return operator.programs({ partner_id: flags.partner, business_id: flags.business, state: flags.state, ...page });
    case 'jobs':
      return operator.jobs({ partner_id: flags.partner, status: flags.status, ...page });
    case 'features':
      return pbs.services.advertising.features.operatorView(need(a, 'program id'));
    case 'hold':
    case 'release':
    case 'complete':
      return operator[sub](need(a, 'job id'));
    case 'hold-new-jobs':
      if (a !== 'on' && a !== 'off') throw new UsageError('hold-new-jobs takes on or off');
      return operator.setSettings({ hold_new_jobs: a === 'on' });
    case 'flags':
      return operator.setFlags(need(a, 'business id'), {
        removed_from_search: optionalBool(flags['removed-from-search'], '--removed-from-search'),
        restricted_from_advertising: optionalBool(flags.restricted, '--restricted'),
      });
    case 'category-policy':
      if (a === 'decline') return operator.declineCategory(need(b, 'category'), flags.reason);
      if (a === 'allow') return operator.allowCategory(need(b, 'category'));
      if (a === undefined) return operator.categoryPolicy();
      throw new UsageError(`unknown category-policy command ${a}`);
    case 'promotion':
      if (a === 'list') return operator.promotions();
      if (a !== 'set') throw new UsageError('promotion takes list or set');
      return operator.savePromotion(need(b, 'promotion code'), {
        program_types: flags.types?.split(',').map((t) => t.trim()),
        min_budget: optionalInt(flags['min-budget'], '--min-budget'),
        max_budget: optionalInt(flags['max-budget'], '--max-budget'),
        months: optionalInt(flags.months, '--months'),
        active: optionalBool(flags.active, '--active'),
      });
    case 'import-metrics':
      return operator.importMetrics(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        onProgress: (done, total) => process.stderr.write(`imported ${done}/${total} lines\n`),
      });
    default:
      throw new UsageError(`unknown advertising command ${sub ?? ''}`);
  }
}

async function reviewCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const reviews = pbs.services.reviews;
  const [sub, a] = args;
  const user = flags.user === undefined ? undefined : { name: flags.user, ...(flags['user-id'] ? { id: flags['user-id'] } : {}), ...(flags['user-image'] ? { image_url: flags['user-image'] } : {}) };
  const rating = optionalInt(flags.rating, '--rating');
  const text = flags.text === undefined ? {} : { text: flags.text, ...(flags.locale ? { locale: flags.locale } : {}) };
  switch (sub) {
    case 'add':
      return reviews.add(need(a, 'business id'), {
        ...(flags.id ? { id: flags.id } : {}),
        rating: rating ?? need(undefined, '--rating'),
        ...text,
        user: user ?? need(undefined, '--user'),
        ...(flags.time ? { time_created: flags.time } : {}),
      });
    case 'edit':
      return reviews.edit(need(a, 'review id'), { ...(rating !== undefined ? { rating } : {}), ...text, ...(user ? { user } : {}), ...(flags.time ? { time_created: flags.time } : {}) });
    case 'remove':
      await reviews.remove(need(a, 'review id'));
      return { removed: a };
    case 'show':
      return reviews.get(need(a, 'review id'));
    case 'list':
      return reviews.list(need(a, 'business id'), { limit: flags.limit, offset: flags.offset });
    case 'respond':
      return reviews.respond(need(a, 'review id'), {
        text: need(flags.text, '--text'),
        business_user: { name: need(flags.name, '--name'), role: need(flags.role, '--role'), ...(flags.photo ? { photo_url: flags.photo } : {}) },
        ...(flags.time ? { time_created: flags.time } : {}),
      });
    case 'unrespond':
      return reviews.removeResponse(need(a, 'review id'));
    case 'import':
      return reviews.importJsonLines(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        notify: flags['no-notify'] !== 'true',
        onProgress: (done, total) => process.stderr.write(`imported ${done}/${total} reviews\n`),
      });
    default:
      throw new UsageError(`unknown review command ${sub ?? ''}`);
  }
}

async function engagementCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const engagement = pbs.services.engagement;
  const [sub, a] = args;
  switch (sub) {
    case 'import': {
      const loaded = await engagement.importJsonLines(fs.readFileSync(need(a, 'JSON lines file'), 'utf8'), {
        maxLines: Number.MAX_SAFE_INTEGER,
        onProgress: (done, total) => process.stderr.write(`loaded ${done}/${total} lines\n`),
      });
      // Scored here, so the command is complete without a running server (its queued task then finds them scored).
      const scored = [];
      for (const week of loaded.weeks) {
        scored.push(await engagement.scoreWeek(week));
        process.stderr.write(`scored the week of ${week}\n`);
      }
      return { ...loaded, scored };
    }
    case 'weeks':
      return engagement.weeks(parsePage(flags, { defaultLimit: 52, minLimit: 1, maxLimit: 520 }));
    case 'score':
      return a === undefined ? engagement.scoreChangedWeeks() : engagement.scoreWeekOf(a);
    case 'show':
      return engagement.business(need(a, 'business id'));
    default:
      throw new UsageError(`unknown engagement command ${sub ?? ''}`);
  }
}

async function webhookCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const hooks = pbs.services.webhooks;
  const [sub, a] = args;
  switch (sub) {
    case 'set':
      return hooks.setEndpoint(need(a, 'partner id'), {
        url: need(flags.url, '--url'),
        client_id: need(flags['client-id'], '--client-id'),
        ...(flags.events ? { event_types: flags.events.split(',').map((e) => e.trim()) } : {}),
      });
    case 'show':
      return hooks.getEndpoint(need(a, 'partner id'));
    case 'verify':
      return hooks.verify(need(a, 'partner id'));
    case 'rotate-secret':
      return hooks.rotateSecret(need(a, 'partner id'));
    case 'remove':
      await hooks.removeEndpoint(need(a, 'partner id'));
      return { removed: a };
    case 'deliveries':
      return hooks.deliveries({ partnerId: flags.partner, status: flags.status, limit: optionalInt(flags.limit, '--limit') ?? 50 });
    case 'redeliver':
      return hooks.redeliver(need(a, 'delivery id'));
    case 'redeliver-failed': {
      const from = Date.parse(need(flags.from, '--from'));
      const to = Date.parse(need(flags.to, '--to'));
      if (Number.isNaN(from) || Number.isNaN(to)) throw new UsageError('--from and --to must be ISO 8601 times');
      return hooks.redeliverFailed(from, to, flags.partner);
    }
    default:
      throw new UsageError(`unknown webhook command ${sub ?? ''}`);
  }
}

async function eventCommand(pbs: Pbs, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [kind, business] = args;
  const hooks = pbs.services.webhooks;
  const id = need(business, 'business id');
  switch (kind) {
    case 'lead':
      return hooks.emitLead(id, { lead_id: flags['lead-id'] });
    case 'license': {
      const status = flags.status ?? 'VERIFIED';
      if (status !== 'VERIFIED' && status !== 'REJECTED' && status !== 'PENDING') throw new UsageError('--status must be VERIFIED, REJECTED or PENDING');
      return hooks.emitLicense(id, {
        license_verification_status: status,
        license_verification_failure_reason: flags.reason,
        license_number: need(flags['license-number'], '--license-number'),
        license_expiry_date: flags.expiry,
        license_trade: flags.trade,
        license_issuing_agency: flags.agency,
      });
    }
    case 'ingestion':
      return hooks.emitIngestion(id, { job_id: need(flags['job-id'], '--job-id'), status: flags.status ?? 'COMPLETED' });
    default:
      throw new UsageError(`unknown event kind ${kind ?? ''}`);
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
          if (result.credentials && config.sandbox) writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { ...result.credentials });
          print(result);
        });
        return 0;
      case 'admin-token':
        if (rest[0] !== 'reset') throw new UsageError('usage: pbs admin-token reset');
        if (config.adminToken) throw new UsageError('PBS_ADMIN_TOKEN is set: change it there instead');
        await withPbs(config, async (pbs) => {
          const adminToken = await resetAdminToken(pbs.ctx.database);
          // The sandbox's saved secrets follow, so walk-throughs that read them keep working.
          const saved = config.sandbox ? writeDemoCredentials(demoCredentialsFile(config.dataDir, config.databaseUrl), { admin_token: adminToken }) : undefined;
          print({ admin_token: adminToken, ...(saved ? { saved_in: saved } : {}) });
        });
        return 0;
      case 'partner':
        await withPbs(config, async (pbs) => print(await partnerCommand(pbs, rest, flags)));
        return 0;
      case 'business':
        await withPbs(config, async (pbs) => print(await businessCommand(pbs.services, rest, flags)));
        return 0;
      case 'waitlist':
        await withPbs(config, async (pbs) => print(await waitlistCommand(pbs, rest, flags)));
        return 0;
      case 'advertising':
        await withPbs(config, async (pbs) => print(await advertisingCommand(pbs, rest, flags)));
        return 0;
      case 'review':
        await withPbs(config, async (pbs) => print(await reviewCommand(pbs, rest, flags)));
        return 0;
      case 'engagement':
        await withPbs(config, async (pbs) => print(await engagementCommand(pbs, rest, flags)));
        return 0;
      case 'webhook':
        await withPbs(config, async (pbs) => print(await webhookCommand(pbs, rest, flags)));
        return 0;
      case 'event':
        await withPbs(config, async (pbs) => print(await eventCommand(pbs, rest, flags)));
        return 0;
      case 'webhook-listen': {
        const port = optionalInt(flags.port, '--port') ?? 9999;
        const listener = await listenForWebhooks({ port, host: flags.host ?? '127.0.0.1', secret: flags.secret ?? process.env.PBS_WEBHOOK_SECRET });
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
          const row = await pbs.services.reservations.cancelByRestaurant(need(rest[1], 'reservation id'));
          print({ reservation_id: row.id, status: row.status, canceled_by: row.canceled_by });
        });
        return 0;
      case undefined:
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command ? 0 : 2;
      default:
        throw new UsageError(`unknown command ${command}`);
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
