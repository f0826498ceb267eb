import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoBusinesses } from '../../src/demo/demo-dataset.js';
import fs from 'node:fs';
import { admin, call, createPartner, dialects, startPbs, type Harness } from '../support/harness.js';
import { RELEVANCE_TABLE, SF } from '../support/relevance-table.js';

describe.each(dialects)('search relevance over the demo data on %s', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
    const lines = generateDemoBusinesses().map((b) => JSON.stringify(b));
    const imported = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: lines.join('\n'),
      contentType: 'application/x-ndjson',
    });
    expect(imported.status, imported.text).toBe(200);
  });
  afterAll(() => h.close());

  it.each(RELEVANCE_TABLE)('"$term" in $location: $why', async ({ term, location, total, top }) => {
    const r = await call(
      h.url,
      'GET',
      `/v3/businesses/search?location=${encodeURIComponent(location)}&term=${encodeURIComponent(term)}&limit=50`,
      { token: key },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.total).toBe(total);
    expect(r.body.businesses).toHaveLength(total);
    const names = r.body.businesses.map((b: { name: string }) => b.name);
    expect(names.slice(0, top.length)).toEqual(top);
  });

  it.each(['dinner', 'pizza', 'osteria', 'italian food', 'wine', 'bars', 'oster', 'trattoira', 'golden', 'blue pizzeria'])(
    'ranks "%s" the same on the area fast path as on the general one (a radius takes that)',
    async (term) => {
      const path = `/v3/businesses/search?location=${encodeURIComponent(SF)}&term=${encodeURIComponent(term)}&limit=50`;
      const fast = await call(h.url, 'GET', path, { token: key });
      const general = await call(h.url, 'GET', `${path}&radius=40000`, { token: key });
      expect(general.body.total).toBe(fast.body.total);
      expect(general.body.businesses.map((b: { id: string }) => b.id)).toEqual(fast.body.businesses.map((b: { id: string }) => b.id));
    },
  );
});

describe('the relevance table of docs/search.md', () => {
  it('is the one this test holds search to, row by row', () => {
    const doc = fs.readFileSync(new URL('../../docs/search.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([^`]+)` \| ([^|]+) \| (\d+) \| ([^|]+) \|/gm)].map((m) => ({
      term: m[1],
      location: m[2].trim(),
      total: Number(m[3]),
      top: m[4].trim() === '—' ? [] : m[4].split(',').map((n) => n.trim()),
    }));
    expect(rows).toEqual(RELEVANCE_TABLE.map(({ term, location, total, top }) => ({ term, location, total, top })));
  });
});
