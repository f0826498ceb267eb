import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE62 = 62;

/** Random base62 string; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      const index = byte & 63;
      if (index < BASE62) out += ALPHABET[index];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Object identifiers look like the original's 22-character encrypted ids. */
export function newId(): string {
  return randomBase62(22);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two secrets' hashes in constant time (same length guaranteed by hashing). */
export function secretMatches(candidate: string, expectedHash: string): boolean {
  const a = Buffer.from(sha256Hex(candidate), 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
