import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStale } from '../../scripts/build-if-stale.mjs';

/** Issue 27 "A start that takes seconds": `npm start` builds a part only when its output is missing or older than a source. */
describe('npm start’s build check', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-stale-'));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  const part = { name: 'server', sources: ['src', 'tsconfig.json'], output: 'dist/main.js', command: ['tsc'] };
  const at = (file: string, seconds: number) => {
    fs.mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
    if (!fs.existsSync(path.join(base, file))) fs.writeFileSync(path.join(base, file), '');
    fs.utimesSync(path.join(base, file), seconds, seconds);
  };

  it('builds what was never built, skips what is newer than its sources, and builds again after a change', () => {
    at('src/platform/deep/a.ts', 1_000);
    at('tsconfig.json', 1_000);
    expect(isStale(part, base)).toBe(true);
    at('dist/main.js', 2_000);
    // Folders' own times count too (a file removed or renamed): set them back as well.
    for (const dir of ['src', 'src/platform', 'src/platform/deep']) fs.utimesSync(path.join(base, dir), 1_000, 1_000);
    expect(isStale(part, base)).toBe(false);
    at('src/platform/deep/a.ts', 3_000);
    expect(isStale(part, base)).toBe(true);
    at('dist/main.js', 4_000);
    at('tsconfig.json', 5_000);
    expect(isStale(part, base)).toBe(true);
  });
});
