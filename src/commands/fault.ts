import type { Faults } from '../workbench/faults.js';
import { need, optionalInt, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';

/**
 * `pbs fault …` (sandbox): a partner's fault rules (docs/faults.md). The CLI has no HTTP server
 * to look operations up in, so it takes the operation as written; a rule naming no operation of
 * pbs never acts (the API refuses such a rule).
 */
export async function faultCommand(faults: Faults, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  switch (sub) {
    case 'add': {
      const number = (name: string) => optionalInt(flags[name], `--${name}`);
      return faults.add(
        need(a, 'partner id'),
        {
          operation: need(flags.operation, '--operation'),
          business_id: flags.business,
          action: flags.drop !== undefined ? 'drop' : flags['latency-ms'] !== undefined ? 'latency' : 'error',
          status: number('status'),
          error_code: flags.code,
          retry_after_seconds: number('retry-after'),
          latency_ms: number('latency-ms'),
          count: number('count'),
          percent: number('percent'),
          expires_in_seconds: number('expires-in'),
        },
        (operation) => /^(GET|POST|PUT|PATCH|DELETE) \/\S+$/.test(operation),
      );
    }
    case 'list':
      return faults.list(a);
    case 'remove':
      await faults.remove(need(a, 'fault id'));
      return { removed: a };
    default:
      throw new UsageError(`unknown fault command ${sub ?? ''}`);
  }
}

export const faultCommands: CommandGroupSpec = {
  name: 'fault',
  summary: '(sandbox) faults on demand: make a partner’s matching calls fail, slow down or drop',
  commands: [
    {
      use: 'add <partner-id>',
      summary: 'a fault rule (an error by default)',
      options: [
        ['--operation <operation>', 'e.g. "POST /v3/bookings/{business_id}/holds" (required)'],
        ['--status <status>', 'the error’s status (default 503)'],
        ['--code <code>', 'the error code from the catalogue'],
        ['--retry-after <seconds>', 'a Retry-After header'],
        ['--latency-ms <ms>', 'delay the call instead of failing it'],
        ['--drop', 'close the connection without an answer'],
        ['--business <business-id>', 'only calls for this business'],
        ['--count <n>', 'act this many times, then stop'],
        ['--percent <p>', 'act on this share of matching calls'],
        ['--expires-in <seconds>', 'end the rule after this long'],
      ],
    },
    { use: 'list [partner-id]', summary: 'live fault rules' },
    { use: 'remove <fault-id>', summary: 'end a fault rule' },
  ],
};
