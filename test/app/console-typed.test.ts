import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = path.join(ROOT, 'console/src');

/** The helpers themselves (api.ts also signs in, the one call that sends a token). */
const HELPERS = new Set(['api.ts', 'hooks.ts', 'client.ts']);

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** `api(…)` with or without type arguments (nested ones too: `api<Record<string, unknown>>(`), or a fetch of pbs's paths. */
const CALL_BY_HAND = /\bapi\s*(<.+?>)?\s*\(|\bfetch\(['`]\/(admin|portal)/;

/**
 * Issue 27: the console and the portal call pbs only through the typed client (`pbs.GET(…)` over
 * the OpenAPI document's types, console/src/client.ts), never by a hand-written path and answer
 * type, so a field a page reads is one the server declares.
 */
describe('the console and the portal', () => {
  it('call pbs through the typed client only', () => {
    const byHand = files(SOURCES)
      .map((f) => path.relative(SOURCES, f))
      .filter((f) => /\.tsx?$/.test(f) && !HELPERS.has(f))
      .filter((f) => CALL_BY_HAND.test(fs.readFileSync(path.join(SOURCES, f), 'utf8')));
    expect(byHand, 'calls pbs by hand: use pbs.GET/POST from client.ts').toEqual([]);
    // The pattern finds the spellings that slipped past it before (issue 41).
    for (const call of ["api('POST', path)", 'api<Answer>(', 'api<Record<string, unknown>>(', "fetch('/admin/v1/x')"])
      expect(CALL_BY_HAND.test(call), call).toBe(true);
    expect(CALL_BY_HAND.test('importText(path, text)')).toBe(false);
  });
});
