import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';

/**
 * Issue 44 from a shell on the server: the first admin made with `pbs operator add`, changes made
 * by the CLI in the audit trail as the CLI's, read with `pbs audit list`, `tail` and `export`.
 */
describe('operators and the audit trail from the CLI', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-team-cli-'));
  const env = { PBS_DATA_DIR: dataDir, PBS_SEED_DEMO: '0' };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('invites the first admin, changes a partner, and reads who did it', async () => {
    const added = await runCli(['operator', 'add', 'first@ops.example.com', '--role', 'admin'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json.account).toMatchObject({ email: 'first@ops.example.com', role: 'admin', state: 'invited' });
    expect(added.json.setup_url).toContain('/console/#/setup/pbs_setup_');
    expect((await runCli(['operator', 'add', 'first@ops.example.com', '--role', 'owner'], env)).code).toBe(2);
    const partner = await runCli(['partner', 'create', '--name', 'Shell Partner'], env);
    expect(partner.code, partner.stderr).toBe(0);
    const listed = await runCli(['audit', 'list', '--actor', 'pbs CLI'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const actions = listed.json.records.map((r: { action: string; actor: { via: string } }) => `${r.actor.via} ${r.action}`);
    expect(actions).toEqual(expect.arrayContaining(['cli CLI pbs operator add first@ops.example.com', 'cli CLI pbs partner create']));
    const exported = await runCli(['audit', 'export'], env);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBe(listed.json.records.length);
    // Oldest first: the invitation, then the partner.
    expect(lines[0].action).toBe('CLI pbs operator add first@ops.example.com');
    const role = await runCli(['operator', 'set', 'first@ops.example.com', '--role', 'viewer'], env);
    expect(role.json.role).toBe('viewer');
    const tail = await runCli(['audit', 'tail', '--since', '1970-01-01T00:00:00Z', '--count', '1', '--action', 'operator set'], env);
    expect(tail.stdout).toMatch(/pbs CLI \(cli\) CLI pbs operator set first@ops\.example\.com account=\S+ from local shell/);
  });
});
