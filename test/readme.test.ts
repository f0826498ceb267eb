import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startServerProcess, type ServerProcess } from './support/process.js';

const ROOT = path.resolve(import.meta.dirname, '..');

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
    const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-readme-'));
    server = await startServerProcess({ PBS_DATA_DIR: dataDir, PBS_TASKS_POLL_MS: '100', PBS_WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await server?.stop('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs end to end when pasted in order', { timeout: 240_000 }, async () => {
    const blocks = walkThrough(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, BASE: server.url, PBS_DATA_DIR: dataDir, LISTEN_PORT: String(await freePort()), PBS_LOG_LEVEL: 'warn' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    for (const seen of ['"linked":1', 'HOLD_NOT_FOUND', 'verification challenge answered', 'signature ok: NEW_EVENT', 'delivered', 'Bearer']) {
      expect(output, `expected "${seen}" in:\n${output}`).toContain(seen);
    }
    expect(output).not.toMatch(/SIGNATURE DOES NOT MATCH|INTERNAL_ERROR/);
  });
});
