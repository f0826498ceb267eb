import { CLI_OPERATOR } from '../platform/auth/operator.js';
import { isOperatorRole, operatorRoles, type OperatorRole } from '../platform/auth/operator.js';
import type { AuditRecord } from '../platform/audit/audit-store.js';
import type { Team } from '../team/team-service.js';
import type { AuditService, AuditQuery } from '../team/audit-service.js';
import { need, optionalInt, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';

/** How often `pbs audit tail` looks for new records. */
const TAIL_POLL_MS = 1000;

function roleFlag(value: string | undefined): OperatorRole | undefined {
  if (value === undefined) return undefined;
  if (!isOperatorRole(value)) throw new UsageError(`--role must be one of ${operatorRoles.join(', ')}`);
  return value;
}

/** `pbs operator …`: accounts from a shell on the server (the first admin among them). */
export async function operatorCommand(team: Team, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  const accountOf = async (emailOrId: string) => {
    const found = (await team.list()).find((account) => account.id === emailOrId || account.email === emailOrId.toLowerCase());
    if (!found) throw new UsageError(`no operator account ${emailOrId}`);
    return found;
  };
  switch (sub) {
    case 'list':
      return { operators: await team.list() };
    case 'add':
      return team.invite({ email: need(a, 'e-mail'), name: flags.name, role: roleFlag(need(flags.role, '--role')) ?? 'viewer' });
    case 'set': {
      const account = await accountOf(need(a, 'e-mail or account id'));
      if (flags.disable !== undefined && flags.enable !== undefined) throw new UsageError('--disable or --enable, not both');
      const disabled = flags.disable !== undefined ? true : flags.enable !== undefined ? false : undefined;
      return team.change(account.id, { name: flags.name, role: roleFlag(flags.role), disabled }, CLI_OPERATOR);
    }
    case 'setup-link':
      return team.resetSetup((await accountOf(need(a, 'e-mail or account id'))).id);
    case 'tokens':
      return { tokens: await team.tokens((await accountOf(need(a, 'e-mail or account id'))).id) };
    default:
      throw new UsageError(`unknown operator command ${sub ?? ''}`);
  }
}

/** `pbs audit …`: the audit trail in a terminal: a page, a tail that follows, a JSON-lines export. */
export async function auditCommand(audit: AuditService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub] = args;
  const query: AuditQuery = {
    actor: flags.actor,
    partner_id: flags.partner,
    business_id: flags.business,
    action: flags.action,
    since: flags.since,
    until: flags.until,
  };
  switch (sub) {
    case 'list':
      return audit.page({ ...query, limit: optionalInt(flags.limit, '--limit') ?? 50 });
    case 'export':
      for await (const chunk of audit.exportLines({ ...query, limit: optionalInt(flags.limit, '--limit') })) process.stdout.write(chunk);
      return undefined;
    case 'tail':
      await tail(audit, query, flags.json !== undefined, optionalInt(flags.count, '--count'));
      return undefined;
    default:
      throw new UsageError(`unknown audit command ${sub ?? ''}`);
  }
}

/** Prints the newest records as they are written (from now on, or from --since), until Ctrl-C or --count. */
async function tail(audit: AuditService, query: AuditQuery, json: boolean, count: number | undefined) {
  const newest = query.since ? undefined : (await audit.page({ ...query, limit: 1 })).records[0];
  let after = newest ? { at: Date.parse(newest.at), id: newest.id } : undefined;
  let left = count ?? Infinity;
  while (left > 0) {
    const records = await audit.after(query, after);
    for (const record of records) {
      after = { at: Date.parse(record.at), id: record.id };
      process.stdout.write(`${json ? JSON.stringify(record) : line(record)}\n`);
      if (--left === 0) return;
    }
    if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS));
  }
}

function line(r: AuditRecord): string {
  const target = r.target ? ` ${r.target.kind}=${r.target.id}` : '';
  return `${r.at} ${r.actor.name} (${r.actor.via}) ${r.action}${target} from ${r.address}`;
}

const FILTERS = [
  ['--actor <email-or-id>', 'only this person’s actions (part of the e-mail, or the account id)'],
  ['--partner <partner-id>', 'only actions on this partner'],
  ['--business <business-id>', 'only actions on this business'],
  ['--action <text>', 'only actions containing this (disable, credentials, SIGN-IN)'],
  ['--since <iso>', 'from this time'],
  ['--until <iso>', 'before this time'],
] as const;

export const operatorCommands: CommandGroupSpec = {
  name: 'operator',
  summary: 'operator accounts: invite people with a role, change or disable them',
  commands: [
    { use: 'list', summary: 'accounts, roles and last sign-ins' },
    {
      use: 'add <email>',
      summary: 'invite a person: prints their single-use setup link',
      options: [
        ['--role <role>', `${operatorRoles.join(', ')}`],
        ['--name <name>', 'how the console names them'],
      ],
    },
    {
      use: 'set <email-or-id>',
      summary: 'change a role or name, disable (ends sessions, revokes tokens) or enable',
      options: [
        ['--role <role>', `${operatorRoles.join(', ')}`],
        ['--name <name>', 'a new name'],
        ['--disable', 'disable the account'],
        ['--enable', 'enable it again'],
      ],
    },
    { use: 'setup-link <email-or-id>', summary: 'a new setup link (lost password or phone)' },
    { use: 'tokens <email-or-id>', summary: 'an account’s personal API tokens (never their secrets)' },
  ],
};

export const auditCommands: CommandGroupSpec = {
  name: 'audit',
  summary: 'the audit trail: who changed what, when, from where',
  commands: [
    { use: 'list', summary: 'newest first', options: [...FILTERS, ['--limit <n>', 'how many (default 50)']] },
    {
      use: 'tail',
      summary: 'new records as they are written, a line each (Ctrl-C ends)',
      options: [...FILTERS, ['--count <n>', 'stop after this many']],
    },
    {
      use: 'export',
      summary: 'JSON lines, oldest first, for a SIEM',
      options: [...FILTERS, ['--limit <n>', 'at most this many (default 100000)']],
    },
  ],
};
