import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepDirectoryToOwner } from '../../src/platform/db/data-directory.js';

/** The SQLite database's directory is kept to its owner (docs/security.md, "What is stored how"). */
describe('the database directory', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-dir-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const modeOf = (dir: string) => fs.statSync(dir).mode & 0o7777;

  it('is made 0700, and tightened when an older pbs left it 0755', () => {
    const made = path.join(root, 'new', 'data');
    keepDirectoryToOwner(made);
    expect(modeOf(made)).toBe(0o700);
    const old = path.join(root, 'old');
    fs.mkdirSync(old);
    fs.chmodSync(old, 0o755);
    fs.writeFileSync(path.join(old, 'pbs.sqlite'), '');
    fs.writeFileSync(path.join(old, 'pbs.logs.sqlite'), '');
    fs.writeFileSync(path.join(old, 'demo-credentials.json'), '{}');
    keepDirectoryToOwner(old, () => expect.fail('no warning expected'));
    expect(modeOf(old)).toBe(0o700);
  });

  it('is left as it is, with one warning, when it is not evidently pbs’s own (other files, sticky like /tmp)', () => {
    const shared = path.join(root, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o755);
    fs.writeFileSync(path.join(shared, 'notes.txt'), '');
    const sticky = path.join(root, 'sticky');
    fs.mkdirSync(sticky);
    fs.chmodSync(sticky, 0o1777);
    for (const [dir, mode] of [
      [shared, 0o755],
      [sticky, 0o1777],
    ] as const) {
      const warnings: string[] = [];
      keepDirectoryToOwner(dir, (message) => warnings.push(message));
      expect(modeOf(dir)).toBe(mode);
      expect(warnings).toEqual([expect.stringMatching(/open to other users .*chmod 700/)]);
    }
  });
});
