import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';

/** Issue 45 from a shell on the server: `pbs partner readiness`, `approve` and `drill`. */
describe('launch readiness from the CLI', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-readiness-cli-'));
  const env = { PBS_DATA_DIR: dataDir, PBS_SEED_DEMO: '0' };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('reports a partner’s readiness as JSON and Markdown, approves it, and starts a drill', async () => {
    const created = await runCli(['partner', 'create', '--name', 'Shell Partner', '--interfaces', 'reservations'], env);
    expect(created.code, created.stderr).toBe(0);
    const id: string = created.json.id;
    const report = await runCli(['partner', 'readiness', id], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.json.interfaces.map((i: { interface: string }) => i.interface)).toEqual(['reservations', 'resilience', 'webhooks']);
    expect(report.json.score).toBe(0);
    const markdown = await runCli(['partner', 'readiness', id, '--markdown'], env);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('# Launch readiness: Shell Partner');
    expect(markdown.stdout).toContain('| ❌ | Holds, then reserves with the hold’s parameters | Not shown yet by your traffic.');
    const approved = await runCli(['partner', 'approve', id, '--note', 'checked'], env);
    expect(approved.json).toMatchObject({ approved_by: 'pbs CLI', note: 'checked' });
    const drill = await runCli(['partner', 'drill', id, 'rate_limit', '--duration', '60'], env);
    expect(drill.code, drill.stderr).toBe(0);
    expect(drill.json).toMatchObject({ kind: 'rate_limit', state: 'running', started_by: 'pbs CLI' });
    expect((await runCli(['partner', 'drill', id, 'earthquake'], env)).code).not.toBe(0);
    expect((await runCli(['partner', 'readiness', 'no-such-partner'], env)).code).not.toBe(0);
  });
});
