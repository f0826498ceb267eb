import type { RequestLog } from '../workbench/request-log.js';
import { requestLogFilter } from '../workbench/routes.js';
import { need, optionalInt, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';

/** How often `pbs logs tail` looks for new entries. */
const TAIL_POLL_MS = 500;
/** Entries this far behind the newest seen are looked at again: another process may commit a batch late. */
const TAIL_SLACK = 200;

/**
 * `pbs logs …`: the request log in a terminal (docs/request-log.md). `tail` prints new entries as
 * they are written, one line each (`--json`: one JSON object per line), until interrupted or,
 * with `--count N`, after N entries; `--after ID` starts after that entry instead of now.
 */
export async function logsCommand(log: RequestLog, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  const filter = requestLogFilter({
    partner_id: flags.partner,
    status: statusFlag(flags.status),
    operation: flags.operation,
    interface: flags.interface,
    error_code: flags['error-code'],
    from: flags.from,
    to: flags.to,
    limit: optionalInt(flags.limit, '--limit') ?? 50,
  });
  switch (sub) {
    case 'list':
      return { entries: await log.list(filter) };
    case 'errors':
      return { errors: await log.errorGroups({ partnerId: filter.partnerId, from: filter.from, to: filter.to }) };
    case 'show': {
      const id = optionalInt(need(a, 'entry id'), 'entry id');
      const entry = id === undefined ? undefined : await log.entry(id);
      if (!entry) throw new UsageError(`no request log entry ${a}`);
      return entry;
    }
    case 'tail':
      await tail(log, filter, flags.json !== undefined, optionalInt(flags.count, '--count'), optionalInt(flags.after, '--after'));
      return undefined;
    default:
      throw new UsageError(`unknown logs command ${sub ?? ''}`);
  }
}

async function tail(
  log: RequestLog,
  filter: ReturnType<typeof requestLogFilter>,
  json: boolean,
  count: number | undefined,
  after: number | undefined,
) {
  // From now on (the newest entry's id), or after the entry given.
  let cursor = after ?? (await log.store().list({ limit: 1 }))[0]?.id ?? 0;
  // What is there already is not new: only entries written after the start are printed.
  const window = (from: number) => log.list({ ...filter, beforeId: undefined, afterId: Math.max(0, from - TAIL_SLACK), limit: 500 });
  const printed = new Set((await window(cursor)).filter((e) => e.id <= cursor).map((e) => e.id));
  let left = count ?? Infinity;
  while (left > 0) {
    const entries = await window(cursor);
    for (const entry of entries) {
      if (printed.has(entry.id) || entry.id <= cursor - TAIL_SLACK) continue;
      printed.add(entry.id);
      cursor = Math.max(cursor, entry.id);
      process.stdout.write(`${json ? JSON.stringify(entry) : line(entry)}\n`);
      if (--left === 0) return;
    }
    for (const id of printed) if (id <= cursor - TAIL_SLACK) printed.delete(id);
    if (entries.length < 500) await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS));
  }
}

function line(e: Awaited<ReturnType<RequestLog['list']>>[number]): string {
  const query = e.query ? `?${e.query}` : '';
  const code = e.error_code ? ` ${e.error_code}` : '';
  return `${e.at} ${e.status}${code} ${e.method} ${e.path}${query} ${e.duration_ms}ms partner=${e.partner_id ?? '-'} req=${e.request_id}`;
}

/** `--status 4xx` or `--status 404`, as the listing's filter takes it. */
function statusFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-5]([0-9]{2}|xx)$/.test(value)) throw new UsageError('--status takes a status (404) or a class (4xx)');
  return value;
}

const FILTERS = [
  ['--partner <partner-id>', 'only this partner’s requests'],
  ['--status <status>', 'a status (404) or a class (4xx)'],
  ['--operation <operation>', 'e.g. "POST /v3/bookings/{business_id}/holds"'],
  ['--interface <interface>', 'only this interface'],
  ['--error-code <code>', 'only answers with this error code'],
  ['--from <iso>', 'from this time'],
  ['--to <iso>', 'to this time'],
] as const;

export const logsCommands: CommandGroupSpec = {
  name: 'logs',
  summary: 'the request log: what partners sent and what pbs answered',
  commands: [
    {
      use: 'tail',
      summary: 'new requests as pbs answers them, a line each (Ctrl-C ends)',
      options: [...FILTERS, ['--count <n>', 'stop after this many'], ['--after <entry-id>', 'start after this entry instead of now']],
    },
    { use: 'list', summary: 'the log, newest first', options: [...FILTERS, ['--limit <n>', 'how many (default 50)']] },
    { use: 'show <entry-id>', summary: 'one entry whole' },
    {
      use: 'errors',
      summary: 'errors grouped by code and operation, with hints',
      options: [
        ['--partner <partner-id>', 'only this partner’s'],
        ['--from <iso>', 'from this time'],
        ['--to <iso>', 'to this time'],
      ],
    },
  ],
};
