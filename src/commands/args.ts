/** What every command group of the `pbs` CLI reads its arguments with. */
import { isOneOf } from '../platform/query.js';

/** `--limit` and `--offset`, as every listing takes them. */
export const PAGE_OPTIONS = [
  ['--limit <n>', 'how many'],
  ['--offset <n>', 'how many to skip'],
] as const;

/** A command used wrongly: the CLI prints the message and the usage, and exits with 2. */
export class UsageError extends Error {}

export function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

export function optionalInt(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${what} must be a whole number`);
  return n;
}

export function optionalBool(value: string | undefined, what: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`${what} must be true or false`);
  return value === 'true';
}

/** A flag that names one of a fixed list of values (a state, a status). */
export function optionalChoice<const T extends string>(value: string | undefined, choices: readonly T[], what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!isOneOf(choices, value)) throw new UsageError(`${what} must be one of ${choices.join(', ')}`);
  return value;
}
