import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';

const production = { PBS_SANDBOX: '0', PBS_SECRET_KEY: 'k'.repeat(40) };

/** Issue 27 "Safe defaults": the sandbox, which prints its secrets, answers this machine only unless HOST says otherwise. */
describe('where pbs listens', () => {
  it('is 127.0.0.1 in the sandbox, every interface in production, and HOST whenever it is set', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({}).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig(production).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...production, HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
  });
});
