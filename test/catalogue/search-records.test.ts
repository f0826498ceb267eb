import { describe, expect, it } from 'vitest';
import { normalizeBusinessInput, type Business } from '../../src/businesses/business-record.js';
import type { CatalogBusiness } from '../../src/catalog/catalog.js';
import { generateDemoBusinesses } from '../../src/demo/demo-dataset.js';
import { SearchRecords } from '../../src/search/records.js';

describe('search records (the kept JSON parts a search page is written from)', () => {
  const businesses = generateDemoBusinesses(3, 11).map((input) => normalizeBusinessInput(input));
  const entries = businesses.map((b, ordinal) => ({ ordinal, id: b.id, revision: 0 }));
  /** Only what SearchRecords reads of a catalogue entry: its id and revision. */
  const page = (list: typeof entries) => list as unknown as CatalogBusiness[];

  function recordsReading(): { records: SearchRecords; reads: string[][] } {
    const reads: string[][] = [];
    const records = new SearchRecords(async (ids) => {
      reads.push(ids);
      return new Map(businesses.filter((b) => ids.includes(b.id)).map((b): [string, Business] => [b.id, b]));
    });
    return { records, reads };
  }

  it('reads missing records in one query, then answers at once (no promise) from the kept parts', async () => {
    const { records, reads } = recordsReading();
    const first = records.get(page(entries));
    expect(first).toBeInstanceOf(Promise);
    const read = await first;
    expect(reads).toEqual([entries.map((e) => e.id)]);
    expect(read.map((p) => p?.head.toString())).toEqual(businesses.map((b) => expect.stringContaining(`"id":"${b.id}"`)));

    const again = records.get(page(entries));
    expect(Array.isArray(again)).toBe(true);
    expect(again).toEqual(read);
    expect(reads).toHaveLength(1);
  });

  it('reads again only the businesses that changed since their parts were kept', async () => {
    const { records, reads } = recordsReading();
    await records.get(page(entries));
    const changed = entries.map((e, i) => (i === 1 ? { ...e, revision: 1 } : e));
    const answer = records.get(page(changed));
    expect(answer).toBeInstanceOf(Promise);
    await answer;
    expect(reads).toEqual([entries.map((e) => e.id), [entries[1].id]]);
    expect(Array.isArray(records.get(page(changed)))).toBe(true);
  });

  it('answers undefined for a business whose record is gone, and reads it again next time', async () => {
    const { records, reads } = recordsReading();
    const gone = { ordinal: 9, id: 'gone-business', revision: 0 };
    const answer = await records.get(page([entries[0], gone]));
    expect(answer[0]).toBeDefined();
    expect(answer[1]).toBeUndefined();
    await records.get(page([entries[0], gone]));
    expect(reads).toEqual([[entries[0].id, 'gone-business'], ['gone-business']]);
  });
});
