/**
 * Which fields hold secrets or a guest's personal data, by name, however a client spells the name:
 * in any case, with `_`, `-`, `.`, spaces or brackets between its words or none (`client_secret`,
 * `clientSecret`, `Client-Secret`, `user[password]`), percent-encoded or not. Used wherever pbs
 * keeps what a partner sent: the request log (workbench/redaction.ts) and the process log's
 * request lines (docs/security.md "What is stored how").
 */

/** The name reduced to its letters and digits, in lower case: how names are compared. */
export function normalisedKey(key: string): string {
  return decodedKey(key)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * Names that are secrets wherever they appear in a name (`webhook_secret`, `x-api-key`,
 * `accessToken`), but a paging token (PAGING) is a place in a list.
 */
const SECRET_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'token',
  'authorization',
  'privatekey',
  'credential',
  'cookie',
];
/** Names that are secrets alone (`pwd`, `auth`), but not inside other names. */
const SECRET_NAMES = new Set(['pwd', 'pass', 'auth', 'signature']);
/** Tokens that are places in a list, not secrets: `page_token`, `next_cursor_token`. */
const PAGING = /page|cursor|continuation/;

/** A guest's personal data wherever it appears in a name (`guest_phone`, `firstName`, `e-mail`). */
const PERSONAL_PARTS = [
  'firstname',
  'lastname',
  'fullname',
  'guestname',
  'givenname',
  'familyname',
  'surname',
  'phone',
  'mobile',
  'email',
  'specialrequest',
  'notes',
  'partynote',
  'guestnote',
];
/** Personal alone: a `name` or `note` field. */
const PERSONAL_NAMES = new Set(['name', 'note']);

/** Of the personal names, those a business record has too: its own name and phone are public. */
export const BUSINESS_PUBLIC = new Set(['name', 'phone', 'displayphone']);

export function isSecretKey(key: string): boolean {
  const k = normalisedKey(key);
  return SECRET_NAMES.has(k) || (SECRET_PARTS.some((part) => k.includes(part)) && !(k.includes('token') && PAGING.test(k)));
}

export function isPersonalKey(key: string): boolean {
  const k = normalisedKey(key);
  return PERSONAL_NAMES.has(k) || PERSONAL_PARTS.some((part) => k.includes(part));
}

/** Letters of a word, each optionally followed by a separator: `pass-word`, `pass_word`, `passWord`. */
const spaced = (word: string) => [...word].join('[^a-z0-9"&=]?');

/** The words of `mayNameAField`, each letter maybe followed by a separator; matched against lower-cased text. */
const NAMES_A_FIELD = new RegExp(
  [...SECRET_PARTS, ...SECRET_NAMES, ...PERSONAL_PARTS, ...PERSONAL_NAMES].map(spaced).join('|') + '|\\\\u|%|\\+',
);

/**
 * A cheap first look at text: whether it may name a field to hide, so text that cannot is kept
 * without parsing. Over-matching costs a parse; under-matching would keep a secret, so escapes of
 * any kind (`\u` in JSON, `%` or `+` in a form) always take the full look. The text is lower-cased
 * first, as names are (`normalisedKey`), rather than matched case-blind: a case-blind pattern of
 * thirty words took ~9 µs over an openings answer of 1.4 kB, this ~2 µs (the request log's
 * writer runs it on every answer it keeps, docs/benchmarks.md).
 */
export function mayNameAField(text: string): boolean {
  return NAMES_A_FIELD.test(text.toLowerCase());
}

/** Replaces the values of `key=value` pairs whose key `hide` names (its answer, or as is when undefined). */
export function redactPairs(query: string, hide: (key: string) => string | undefined): string {
  if (query === '' || !mayNameAField(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      const replacement = hide(at < 0 ? pair : pair.slice(0, at));
      return replacement === undefined ? pair : `${at < 0 ? pair : pair.slice(0, at)}=${encodeURIComponent(replacement)}`;
    })
    .join('&');
}

/** A URL for a log line: secrets in its query string redacted and personal data masked. */
export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  return `${url.slice(0, at)}?${redactPairs(url.slice(at + 1), (key) =>
    isSecretKey(key) ? '[redacted]' : isPersonalKey(key) ? '[masked]' : undefined,
  )}`;
}

function decodedKey(key: string): string {
  if (!key.includes('%') && !key.includes('+')) return key;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}
