import { BUSINESS_PUBLIC, isPersonalKey, isSecretKey, mayNameAField, normalisedKey, redactPairs } from '../platform/secret-fields.js';

/**
 * What the request log keeps of a body (docs/request-log.md "What is kept"): secrets never, guest
 * personal data masked unless a sandbox asks for full bodies, and at most `MAX_BODY_BYTES` of
 * each body. Pure: no clock, no I/O.
 */

/** The most of each body an entry keeps; a longer one is cut and marked. */
export const MAX_BODY_BYTES = 16 * 1024;

export const REDACTED = '[redacted]';
export const MASKED = '[masked]';

export interface KeptBody {
  text: string | null;
  /** True when the body was longer than MAX_BODY_BYTES and is cut. */
  cut: boolean;
}

/**
 * A value with secrets replaced and, unless `full`, personal data masked (a copy; the value is not
 * changed). Names are compared however they are spelled (platform/secret-fields.ts); a string that
 * holds JSON (a body inside a body) is looked into too.
 */
export function redactValue(value: unknown, full: boolean, depth = 0): unknown {
  if (depth > 32 || value === null) return value;
  if (typeof value === 'string') return depth > 0 ? redactNestedJson(value, full, depth) : value;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, full, depth + 1));
  const out: Record<string, unknown> = {};
  // A business's own name and phone are public (search, details), not a guest's.
  const business = 'alias' in value || 'coordinates' in value;
  for (const [key, item] of Object.entries(value)) {
    if (isSecretKey(key)) out[key] = REDACTED;
    else if (!full && isPersonalKey(key) && item !== null && item !== '' && !(business && BUSINESS_PUBLIC.has(normalisedKey(key))))
      out[key] = MASKED;
    else out[key] = redactValue(item, full, depth + 1);
  }
  return out;
}

/** A string value that is itself JSON naming a field to hide, redacted inside; any other string as it is. */
function redactNestedJson(text: string, full: boolean, depth: number): string {
  const first = text.trimStart()[0];
  if ((first !== '{' && first !== '[') || text.length > MAX_BODY_BYTES * 4 || !mayNameAField(text)) return text;
  try {
    return JSON.stringify(redactValue(JSON.parse(text), full, depth + 1));
  } catch {
    return text;
  }
}

/** A request body as kept: objects redacted then as JSON; text (CSV, NDJSON) as sent, cut. */
export function keptRequestBody(body: unknown, full: boolean): KeptBody {
  if (body === undefined || body === null) return { text: null, cut: false };
  if (typeof body === 'string') return cut(keptText(body, full));
  return cut(JSON.stringify(redactValue(body, full)));
}

/** An answer as kept: JSON redacted when it names a key to hide, otherwise as sent, cut. */
export function keptResponseBody(payload: string | Buffer | undefined, full: boolean): KeptBody {
  if (payload === undefined) return { text: null, cut: false };
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  return cut(keptText(text, full));
}

/** A query string with secret values redacted and personal values masked (unless `full`). */
export function keptQuery(query: string, full: boolean): string {
  return redactPairs(query, (key) => (isSecretKey(key) ? REDACTED : !full && isPersonalKey(key) ? MASKED : undefined));
}

/** The error code of an answer's JSON body (`{"error": {"code"}}`), if it has one. */
export function errorCodeOf(payload: string | Buffer | undefined): string | null {
  if (payload === undefined) return null;
  const text = typeof payload === 'string' ? payload : payload.toString('utf8', 0, Math.min(payload.length, 4096));
  const match = /^\s*\{\s*"error"\s*:\s*\{\s*"code"\s*:\s*"([A-Z0-9_]{1,80})"/.exec(text);
  return match ? match[1] : null;
}

function keptText(text: string, full: boolean): string {
  if (!mayNameAField(text)) return text;
  try {
    return JSON.stringify(redactValue(JSON.parse(text), full));
  } catch {
    // Not JSON (a form, NDJSON lines): redacted as a query string where it is one, else line by line.
    if (!text.includes('\n')) return keptQuery(text, full);
    return text
      .split('\n')
      .map((line) => keptText(line, full))
      .join('\n');
  }
}

function cut(text: string): KeptBody {
  if (Buffer.byteLength(text) <= MAX_BODY_BYTES) return { text, cut: false };
  return { text: Buffer.from(text).subarray(0, MAX_BODY_BYTES).toString('utf8'), cut: true };
}
