import type { Faults } from '../workbench/faults.js';
import { need, optionalInt, UsageError } from './args.js';

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
