import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { errorCatalogue } from '../../src/platform/errors.js';
import { errorHints } from '../../src/workbench/error-hints.js';
import { mayNameAField } from '../../src/platform/secret-fields.js';
import {
  errorCodeOf,
  keptQuery,
  keptRequestBody,
  keptResponseBody,
  MASKED,
  MAX_BODY_BYTES,
  REDACTED,
} from '../../src/workbench/redaction.js';

/** Issue 26: what the request log keeps of a body (docs/request-log.md "What is kept"). */
describe('request log redaction', () => {
  it('never keeps a secret, and masks guest data unless full bodies are on', () => {
    const form = { grant_type: 'client_credentials', client_id: 'c1', client_secret: 's3cret', first_name: 'Ada', phone: '+14155550123' };
    expect(JSON.parse(keptRequestBody(form, false).text!)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'c1',
      client_secret: REDACTED,
      first_name: MASKED,
      phone: MASKED,
    });
    // Full bodies show the guest, never the secret.
    expect(JSON.parse(keptRequestBody(form, true).text!)).toMatchObject({ client_secret: REDACTED, first_name: 'Ada' });
  });

  it('looks into a body only when it may name a field to hide, however the name is spelled', () => {
    for (const text of ['{"API_KEY":"k"}', '{"Client-Secret":"s"}', '{"guestPhone":"1"}', 'PASS=1', '{"a":"\\u0070"}', 'a=%41', 'a+b'])
      expect(mayNameAField(text), text).toBe(true);
    for (const text of ['{"reservation_times":[{"date":"2031-05-05","times":["18:00"]}]}', 'covers=2&date=2031-05-05'])
      expect(mayNameAField(text), text).toBe(false);
    // Upper case in a body is read as names are (lower-cased): no secret slips through on its case.
    expect(JSON.parse(keptResponseBody('{"Access_TOKEN":"t","Guest":{"E-Mail":"a@b.c"}}', false).text!)).toEqual({
      Access_TOKEN: REDACTED,
      Guest: { 'E-Mail': MASKED },
    });
  });

  it('masks nested guest data in answers, but not a business record’s own name and phone', () => {
    const answer = JSON.stringify({
      visit: { name: 'Grace', phone: '+14155550100', party_notes: 'high chair', party_size: 2 },
      businesses: [{ id: 'b1', alias: 'cafe', name: 'Cafe', phone: '+14155550199' }],
      reviews: [{ user: { name: 'Jane D.' }, text: 'Good.' }],
    });
    const kept = JSON.parse(keptResponseBody(answer, false).text!);
    expect(kept.visit).toEqual({ name: MASKED, phone: MASKED, party_notes: MASKED, party_size: 2 });
    expect(kept.businesses[0]).toEqual({ id: 'b1', alias: 'cafe', name: 'Cafe', phone: '+14155550199' });
    expect(kept.reviews[0].user.name).toBe(MASKED);
    // Nothing to hide: kept byte for byte.
    const plain = '{"reservation_times":[{"date":"2031-05-07","times":[]}]}';
    expect(keptResponseBody(Buffer.from(plain), false).text).toBe(plain);
  });

  it('redacts form and query text, and NDJSON line by line', () => {
    expect(keptQuery('date=2031-05-07&api_key=k&email=a%40b.c&covers=2', false)).toBe(
      `date=2031-05-07&api_key=${encodeURIComponent(REDACTED)}&email=${encodeURIComponent(MASKED)}&covers=2`,
    );
    expect(keptRequestBody('{"phone":"+1415"}\n{"token":"t"}', false).text).toBe(`{"phone":"${MASKED}"}\n{"token":"${REDACTED}"}`);
  });

  it('redacts keys in any case and keys written with escapes, in text as in objects', () => {
    expect(JSON.parse(keptRequestBody('{"Password":"p","Client_Secret":"s"}', false).text!)).toEqual({
      Password: REDACTED,
      Client_Secret: REDACTED,
    });
    expect(JSON.parse(keptResponseBody('{"pass\\u0077ord":"p","label":"\\u00e9"}', false).text!)).toEqual({
      password: REDACTED,
      label: 'é',
    });
    // Text naming no such key is kept as sent, unparsed (the space would not survive a parse).
    expect(keptResponseBody('{"menu": "unusual"}', false).text).toBe('{"menu": "unusual"}');
    expect(keptQuery('API_KEY=k&covers=2', false)).toBe(`API_KEY=${encodeURIComponent(REDACTED)}&covers=2`);
    expect(keptRequestBody('Token=t&covers=2', false).text).toBe(`Token=${encodeURIComponent(REDACTED)}&covers=2`);
  });

  // Issue 39: 40 of 114 spellings of secrets and guest data were stored as sent.
  it('finds every spelling of a secret or a guest field, in JSON, forms and query strings', () => {
    const secrets = [
      'password',
      'client_secret',
      'api_key',
      'access_token',
      'refresh_token',
      'token',
      'authorization',
      'signing_secret',
      'secret_key',
    ];
    const personal = ['first_name', 'last_name', 'phone', 'email', 'notes', 'special_requests', 'phone_number', 'guest_name'];
    const words = (name: string) => name.split('_');
    const spellings = (name: string) => {
      const w = words(name);
      const camel =
        w[0] +
        w
          .slice(1)
          .map((x) => x[0].toUpperCase() + x.slice(1))
          .join('');
      return [
        name,
        name.toUpperCase(),
        camel,
        camel[0].toUpperCase() + camel.slice(1),
        w.join('-'),
        w.join('.'),
        w.join(' '),
        w.map((x) => x[0].toUpperCase() + x.slice(1)).join('-'),
        `x_${name}`,
        `guest[${name}]`,
      ];
    };
    // Percent-encoded keys, which pbs decodes when it reads a form.
    const encoded = (key: string) => [...key].map((c, i) => (i === 2 ? `%${c.charCodeAt(0).toString(16)}` : c)).join('');
    let checked = 0;
    for (const name of [...secrets, ...personal]) {
      for (const key of spellings(name)) {
        const value = 'SeNsItIvE';
        for (const kept of [
          keptRequestBody({ [key]: value, covers: 2 }, false).text!,
          keptResponseBody(JSON.stringify({ data: { [key]: value } }), false).text!,
          keptResponseBody(
            JSON.stringify({ [key]: value }).replace(
              /"([^"]*)":/,
              (_, k: string) => `"${[...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}":`,
            ),
            false,
          ).text!,
          keptRequestBody({ payload: JSON.stringify({ [key]: value }) }, false).text!,
          keptQuery(`covers=2&${encodeURIComponent(key)}=${value}`, false),
          keptQuery(`covers=2&${encoded(encodeURIComponent(key))}=${value}`, false),
          keptRequestBody(`covers=2&${encoded(encodeURIComponent(key))}=${value}`, false).text!,
        ]) {
          expect(kept, `${key}: ${kept}`).not.toContain(value);
          checked++;
        }
      }
    }
    expect(checked).toBe((secrets.length + personal.length) * 10 * 7);
    // Full bodies keep guest data, never a secret.
    expect(keptQuery('First-Name=Ada&Client-Secret=s', true)).toBe(`First-Name=Ada&Client-Secret=${encodeURIComponent(REDACTED)}`);
    // A paging token is not a secret; a business's own phone is public.
    expect(keptResponseBody('{"next_page_token":"abc"}', false).text).toBe('{"next_page_token":"abc"}');
    expect(JSON.parse(keptResponseBody('{"alias":"a","display_phone":"+1 415","name":"Bistro"}', false).text!)).toMatchObject({
      display_phone: '+1 415',
      name: 'Bistro',
    });
  });

  it('cuts a body at 16 kB and says so; reads the error code of an answer', () => {
    const long = keptRequestBody({ text: 'x'.repeat(MAX_BODY_BYTES * 2) }, false);
    expect(long.cut).toBe(true);
    expect(Buffer.byteLength(long.text!)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(keptRequestBody({ covers: 2 }, false)).toEqual({ text: '{"covers":2}', cut: false });
    expect(errorCodeOf('{"error":{"code":"HOLD_NOT_FOUND","description":"…"}}')).toBe('HOLD_NOT_FOUND');
    expect(errorCodeOf('{"reservation_id":"r"}')).toBeNull();
    expect(errorCodeOf(undefined)).toBeNull();
  });
});

describe('request log settings', () => {
  it('is on in the sandbox and off in production unless asked; full bodies are for the sandbox only', () => {
    const production = { PBS_SANDBOX: '0', PBS_ADMIN_TOKEN: 'a'.repeat(32), PBS_SECRET_KEY: 'b'.repeat(64) };
    expect(loadConfig({}).requestLog).toMatchObject({ enabled: true, fullBodies: false, retentionHours: 168, maxRowsPerPartner: 10_000 });
    expect(loadConfig(production).requestLog.enabled).toBe(false);
    expect(loadConfig({ ...production, PBS_REQUEST_LOG: '1' }).requestLog.enabled).toBe(true);
    expect(loadConfig({ PBS_REQUEST_LOG_FULL_BODIES: '1' }).requestLog.fullBodies).toBe(true);
    expect(() => loadConfig({ ...production, PBS_REQUEST_LOG_FULL_BODIES: '1' })).toThrow(ConfigError);
  });
});

describe('error hints', () => {
  it('has a plain hint for every code of the error catalogue', () => {
    for (const code of Object.keys(errorCatalogue)) {
      const hint: unknown = Reflect.get(errorHints, code);
      expect(typeof hint === 'string' && hint.length > 20, `${code} has no hint`).toBe(true);
    }
    expect(Object.keys(errorHints).sort()).toEqual(Object.keys(errorCatalogue).sort());
  });
});
