import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { track } from '../support/children.js';
import { builtIsFresh } from '../support/entry.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/process.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

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

  it('runs end to end when pasted in order', async () => {
    const blocks = walkThrough(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    const script = ['set -euo pipefail', ...blocks].join('\n');
    // Asynchronous: the worker keeps answering vitest while the walk-through runs.
    const env = { ...process.env, BASE: server.url, PBS_DATA_DIR: dataDir, LISTEN_PORT: String(await freePort()), PBS_LOG_LEVEL: 'warn' };
    // A process group of its own: whatever the walk-through starts in the background goes with it.
    const child = track(spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), TEST_DEADLINE_MS);
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
    expect(status, output).toBe(0);
    for (const seen of [
      '"linked":1',
      'HOLD_NOT_FOUND',
      'verification challenge answered',
      'signature ok: NEW_EVENT',
      'delivered',
      'Bearer',
    ]) {
      expect(output, `expected "${seen}" in:\n${output}`).toContain(seen);
    }
    expect(output).not.toMatch(/SIGNATURE DOES NOT MATCH|INTERNAL_ERROR/);
  });
});
