import { describe, expect, it } from 'vitest';
import { newId, timeOrderedUuid } from '../../src/platform/ids.js';

describe('identifiers', () => {
  it('are 22 alphanumeric characters that sort by creation time', async () => {
    const first = newId();
    await new Promise((r) => setTimeout(r, 2));
    const later = newId();
    expect(first).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(first < later).toBe(true);
    expect(new Set(Array.from({ length: 10_000 }, newId)).size).toBe(10_000);
  });

  it('makes version 7 UUIDs for reservations, in time order', async () => {
    const first = timeOrderedUuid();
    await new Promise((r) => setTimeout(r, 2));
    const later = timeOrderedUuid();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first < later).toBe(true);
    expect(Number.parseInt(first.replace(/-/g, '').slice(0, 12), 16)).toBeLessThanOrEqual(Date.now());
  });
});
