import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/demo/demo-dataset.js';
import { topK } from '../../src/search/ranking.js';

describe('topK', () => {
  it('returns the same first k items as a full sort, for any k', () => {
    const random = seededRandom(3);
    for (let round = 0; round < 50; round++) {
      const items = Array.from({ length: Math.floor(random() * 300) }, (_, i) => ({ v: Math.floor(random() * 50), i }));
      const compare = (a: { v: number; i: number }, b: { v: number; i: number }) => a.v - b.v || a.i - b.i;
      const k = Math.floor(random() * 260);
      expect(topK(items, k, compare)).toEqual([...items].sort(compare).slice(0, k));
    }
  });
});
