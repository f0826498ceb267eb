import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Issue 27: `npm ci` on the oldest Node pbs supports prints no engine warning. Every installed
 * package (the lock file's entries present in node_modules) must accept the Node version that
 * package.json's `engines` starts at; one that asks for more is pinned or overridden
 * (package.json `overrides`).
 */
describe('the dependencies on the oldest supported Node', () => {
  it('all accept the engines floor of package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    const refusing = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string } }>)
      .filter(([where, entry]) => where !== '' && entry.engines?.node && fs.existsSync(path.join(ROOT, where)))
      .filter(([, entry]) => !semver.satisfies(floor, entry.engines!.node!))
      .map(([where, entry]) => `${where}@${entry.version} wants node ${entry.engines!.node}`);
    expect(refusing, `Node ${floor}`).toEqual([]);
  });
});
