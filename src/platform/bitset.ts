/**
 * Small helpers for bitsets kept in Uint32Arrays: bit i is bit (i & 31) of word i >>> 5. Search
 * combines its filters this way, 32 businesses per operation.
 */

export const wordsFor = (bits: number): number => (bits + 31) >>> 5;

export function setBit(bits: Uint32Array, i: number): void {
  bits[i >>> 5] |= 1 << (i & 31);
}

export function clearBit(bits: Uint32Array, i: number): void {
  bits[i >>> 5] &= ~(1 << (i & 31));
}

export function hasBit(bits: Uint32Array, i: number): boolean {
  return ((bits[i >>> 5] >>> (i & 31)) & 1) === 1;
}

/** Bits set in a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Bits set in the first `words` words. */
export function countBits(bits: Uint32Array, words = bits.length): number {
  let n = 0;
  for (let w = 0; w < words; w++) if (bits[w] !== 0) n += popcount(bits[w]);
  return n;
}

/** `out &= other`, word by word. */
export function andInto(out: Uint32Array, other: Uint32Array, words = out.length): void {
  for (let w = 0; w < words; w++) out[w] &= other[w];
}

/** `out |= other`, word by word. */
export function orInto(out: Uint32Array, other: Uint32Array, words = out.length): void {
  for (let w = 0; w < words; w++) out[w] |= other[w];
}

/** A bitset of `n` bits, all set. */
export function allSet(n: number): Uint32Array {
  const bits = new Uint32Array(wordsFor(n)).fill(0xffffffff);
  if (n & 31) bits[bits.length - 1] = (1 << (n & 31)) - 1;
  return bits;
}

/** Calls `visit` with the position of each set bit in order, until it answers false. */
export function forEachBit(bits: Uint32Array, words: number, visit: (i: number) => boolean): void {
  for (let w = 0; w < words; w++) {
    let word = bits[w];
    while (word !== 0) {
      const low = word & -word;
      const i = (w << 5) + (31 - Math.clz32(low));
      if (!visit(i)) return;
      word ^= low;
    }
  }
}
