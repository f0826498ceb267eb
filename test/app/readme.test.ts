import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../support/children.js';
import { builtIsFresh } from '../support/entry.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/process.js';

/**
 * The walk-through's own deadline: dozens of `npx pbs` and `node -e` starts, each seconds long on a
 * machine busy with other work (load 10 on 2 cores), far beyond one wait of the suite.
 */
const WALKTHROUGH_MS = 20 * 60_000;

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The README's walk-through: its ```bash blocks, in order (```sh blocks are commands run on their own). */
export function walkThrough(readme: string): string[] {
  return [...readme.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/**
 * The README works when pasted: every ```bash block, run in order in one shell against a fresh
 * `pbs serve` (as `npm start` gives a newcomer), must succeed. `npx pbs` runs the build, as on a
 * fresh clone after `npm ci`.
 */
describe('the README walk-through', () => {
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    // `npx pbs` runs dist/: built by scripts/test.sh before the suite; built here when this file runs alone after an edit.
    if (!builtIsFresh()) await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-readme-'));
    server = await startServerProcess({ PBS_DATA_DIR: dataDir, PBS_TASKS_POLL_MS: '100', PBS_WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await server?.stop('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs end to end when pasted in order', { timeout: WALKTHROUGH_MS + 60_000 }, async () => {
    const blocks = walkThrough(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    // One stream, in order, as a terminal shows it.
    const script = ['exec 2>&1', 'set -euo pipefail', ...blocks].join('\n');
    const env = { ...process.env, BASE: server.url, PBS_DATA_DIR: dataDir, LISTEN_PORT: String(await freePort()), PBS_LOG_LEVEL: 'warn' };
    // A process group of its own, ended with the walk-through: whatever it starts in the
    // background (the webhook listener) goes with it, also when it times out.
    const ran = await runToEnd('bash', ['-c', script], { cwd: ROOT, env, timeoutMs: WALKTHROUGH_MS, endGroup: true }).then(
      (finished) => ({ status: 0, output: finished.stdout }),
      (error: Error & { stdout?: string }) => ({ status: 1, output: `${error.stdout ?? ''}\n${error.message}` }),
    );
    const { status, output } = ran;
    expect(status, output).toBe(0);
    for (const seen of [
      '"linked":1',
      'HOLD_NOT_FOUND',
      'verification challenge answered',
      'signature ok: NEW_EVENT',
      'delivered',
      'Bearer',
      'API-SELF',
      'UNAUTHORIZED_API_KEY',
    ]) {
      expect(output, `expected "${seen}" in:\n${output}`).toContain(seen);
    }
    expect(output).not.toMatch(/SIGNATURE DOES NOT MATCH|INTERNAL_ERROR/);
  });
});
