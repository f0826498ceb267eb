import { isRecord } from './values.js';
// Plain loops over keys (no Object.entries arrays): these run on every request.

/** True when a string anywhere in the value (keys included) holds U+0000, which PostgreSQL text cannot store. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsNul(item, depth + 1)) return true;
    return false;
  }
  if (!isRecord(value)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes('\u0000') || containsNul(value[key], depth + 1)) return true;
  }
  return false;
}

/** True when a number anywhere in the value is Infinity or NaN (`1e309` parses to Infinity). */
export function containsNonFinite(value: unknown, depth = 0): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsNonFinite(item, depth + 1)) return true;
    return false;
  }
  if (!isRecord(value)) return false;
  for (const key in value) {
    if (Object.hasOwn(value, key) && containsNonFinite(value[key], depth + 1)) return true;
  }
  return false;
}
