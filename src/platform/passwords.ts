import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords of people (business users today): Argon2id through `@node-rs/argon2`, a maintained
 * binding of the reference implementation (docs/adr/0011-password-hashing.md), with its defaults
 * (19 MiB, 2 passes, OWASP's minimum), so a stolen table costs an attacker memory per guess.
 */

/** Shortest and longest password pbs takes (long passphrases welcome; past 200 is not a password). */
export const PASSWORD_LENGTH = { min: 12, max: 200 };

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/**
 * Whether `password` is the one `stored` hashes. With no stored hash (no such person, or no
 * password set) a hash is still computed, so the answer takes as long either way.
 */
export async function passwordMatches(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await unknownPersonHash(), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

let dummy: Promise<string> | undefined;
/** A hash of nothing anyone knows, made once: what an unknown person's guess is checked against. */
function unknownPersonHash(): Promise<string> {
  dummy ??= hash(`no such person ${Math.random()}`);
  return dummy;
}
