import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { weakSecretProblem } from '../../src/platform/secret-strength.js';

/** Issue 39: production took any secret long enough, `aaaa…` included. */
describe('production secret strength', () => {
  it('refuses secrets that are easy to guess however long, and takes random ones', async () => {
    for (const weak of [
      'a'.repeat(64),
      'passwordpasswordpasswordpassword',
      'Summer2024!Summer2024!Summer2024!',
      'abcd1234abcd1234abcd1234abcd1234',
      '0123456789abcdef0123456789abcdef',
      'qwertyuiopasdfghjklzxcvbnm123456',
    ])
      expect(await weakSecretProblem('PBS_ADMIN_TOKEN', weak), weak).toMatch(/^PBS_ADMIN_TOKEN is too easy to guess .*openssl rand/);
    for (let i = 0; i < 5; i++)
      for (const random of [randomBytes(16).toString('hex'), randomBytes(32).toString('base64'), randomBytes(30).toString('base64url')])
        expect(await weakSecretProblem('PBS_SECRET_KEY', random), random).toBeUndefined();
  });
});
