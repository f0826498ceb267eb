import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE62 = 62;

// Random bytes are drawn from the OS in blocks and handed out as needed: one system call per
// request for a 22-character id was a measurable share of a booking's cost.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Random base62 string; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const index = nextRandomByte() & 63;
    if (index < BASE62) out += ALPHABET[index];
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
