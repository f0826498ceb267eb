import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * The second factor of operator accounts: TOTP (RFC 6238, 6 digits every 30 s, through the
 * `otpauth` package), its secret kept sealed with AES-256-GCM under a key derived from pbs's
 * secret, so a copy of the database alone does not give anyone the codes.
 */

/** A secret sealed: `v1.<iv>.<ciphertext>.<tag>`, base64url. */
export async function seal(key: () => Promise<Buffer>, text: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await key(), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

export async function unseal(key: () => Promise<Buffer>, value: string): Promise<string> {
  const [version, iv, sealed, tag] = value.split('.');
  if (version !== 'v1' || !iv || !sealed || !tag) throw new Error('unreadable TOTP secret');
  const decipher = createDecipheriv('aes-256-gcm', await key(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}

export function totpOf(email: string, base32: string): TOTP {
  return new TOTP({ issuer: 'pbs', label: email, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(base32) });
}

/** The time step a code belongs to (this one or a neighbour, for clock drift), if it is right and newer than the last one taken. */
export function totpStep(totp: TOTP, code: string, now: number, lastStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code.trim())) return undefined;
  const delta = totp.validate({ token: code.trim(), timestamp: now, window: 1 });
  if (delta === null) return undefined;
  const step = totp.counter({ timestamp: now }) + delta;
  return lastStep !== null && step <= Number(lastStep) ? undefined : step;
}
