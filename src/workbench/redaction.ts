/**
 * What the request log keeps of a body (docs/request-log.md "What is kept"): secrets never, guest
 * personal data masked unless a sandbox asks for full bodies, and at most `MAX_BODY_BYTES` of
 * each body. Pure: no clock, no I/O.
 */

/** The most of each body an entry keeps; a longer one is cut and marked. */
export const MAX_BODY_BYTES = 16 * 1024;

export const REDACTED = '[redacted]';
export const MASKED = '[masked]';

/** Keys whose values are secrets: never stored, whatever the settings. */
const SECRET_KEYS = new Set([
  'password',
  'secret',
  'client_secret',
  'api_key',
  'access_token',
  'refresh_token',
  'token',
  'authorization',
  'signing_secret',
  'secret_key',
]);

/** Keys whose values are a guest's personal data (names, phone, e-mail, notes). */
const PERSONAL_KEYS = new Set([
  'name',
  'first_name',
  'last_name',
  'phone',
  'phone_number',
  'email',
  'notes',
  'party_notes',
  'special_requests',
  'guest_name',
]);

/** Of those, the keys a business record also has (its own name and phone are public). */
const BUSINESS_KEYS = new Set(['name', 'phone']);

/**
 * A cheap first look: text that names none of the keys needs no parsing to be kept as it is. Keys
 * are matched in any case, as redactValue does (`"Password"` is a secret too), and JSON text with
 * a `\u` escape is always parsed, since an escaped key (`"pass\u0077ord"`) reads as one of them.
 */
const ANY_KEY = new RegExp(`"(${[...SECRET_KEYS, ...PERSONAL_KEYS].join('|')})"|\\\\u`, 'i');
const ANY_FORM_KEY = new RegExp(`(^|&)(${[...SECRET_KEYS, ...PERSONAL_KEYS].join('|')})=`, 'i');

export interface KeptBody {
  text: string | null;
  /** True when the body was longer than MAX_BODY_BYTES and is cut. */
  cut: boolean;
}

/** A value with secrets replaced and, unless `full`, personal data masked (a copy; the value is not changed). */
export function redactValue(value: unknown, full: boolean, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, full, depth + 1));
  const out: Record<string, unknown> = {};
  // A business's own name and phone are public (search, details), not a guest's.
  const business = 'alias' in value || 'coordinates' in value;
  for (const [key, item] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (SECRET_KEYS.has(lower)) out[key] = REDACTED;
    else if (!full && PERSONAL_KEYS.has(lower) && item !== null && item !== '' && !(business && BUSINESS_KEYS.has(lower)))
      out[key] = MASKED;
    else out[key] = redactValue(item, full, depth + 1);
  }
  return out;
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
  if (query === '' || !ANY_FORM_KEY.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      const key = decodeKey(at < 0 ? pair : pair.slice(0, at)).toLowerCase();
      if (SECRET_KEYS.has(key)) return `${pair.slice(0, at)}=${encodeURIComponent(REDACTED)}`;
      if (!full && PERSONAL_KEYS.has(key)) return `${pair.slice(0, at)}=${encodeURIComponent(MASKED)}`;
      return pair;
    })
    .join('&');
}

/** The error code of an answer's JSON body (`{"error": {"code"}}`), if it has one. */
export function errorCodeOf(payload: string | Buffer | undefined): string | null {
  if (payload === undefined) return null;
  const text = typeof payload === 'string' ? payload : payload.toString('utf8', 0, Math.min(payload.length, 4096));
  const match = /^\s*\{\s*"error"\s*:\s*\{\s*"code"\s*:\s*"([A-Z0-9_]{1,80})"/.exec(text);
  return match ? match[1] : null;
}

function keptText(text: string, full: boolean): string {
  // JSON names its keys in quotes; only other text (a form, a query) is looked at as `key=`.
  const json = text.startsWith('{') || text.startsWith('[');
  if (!ANY_KEY.test(text) && (json || !ANY_FORM_KEY.test(text))) return text;
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

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}
