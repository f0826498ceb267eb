/**
 * Reading query and form values the way real clients send them: a repeated key arrives as an
 * array (the first counts where one value is meant), a list as repeated keys or a comma list.
 */
import { isRecord } from './values.js';

/** One value of a query or form field (repeated keys: the first), as text. */
export function single(value: unknown): string | undefined {
  if (Array.isArray(value)) return single(value[0]);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // Parsed JSON holds nothing else but objects (and null, which reads as absent).
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : undefined;
}

/** Every value of a list field, from repeated keys and comma lists alike, trimmed, empty ones dropped. */
export function list(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const out: string[] = [];
  for (const v of values) {
    for (const part of (single(v) ?? '').split(',')) {
      const item = part.trim();
      if (item !== '') out.push(item);
    }
  }
  return out;
}

/** A request body as a JSON object; anything else reads as empty, so the service's checks refuse it. */
export function bodyObject(body: unknown): Record<string, unknown> {
  return isRecord(body) ? body : {};
}

/**
 * A JSON list of strings that pbs stored in a text column, read back checked rather than cast:
 * anything else there is a fault of pbs (or of a hand edit), and says so.
 */
export function storedStrings(json: string): string[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string'))
    throw new Error(`a stored list of strings is not one: ${json.slice(0, 80)}`);
  return value;
}

/** Whether `value` is one of `values` (a const list of names), narrowing it to their type. */
export function isOneOf<const T extends string>(values: readonly T[], value: unknown): value is T {
  return values.some((v) => v === value);
}
