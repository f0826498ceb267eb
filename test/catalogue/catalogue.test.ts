import { describe, expect, it } from 'vitest';
import type { Business } from '../../src/businesses/business-record.js';
import { normalizeBusinessInput } from '../../src/businesses/business-record.js';
import { Catalog, RESERVABLE, SEARCHABLE, type CatalogSources } from '../../src/catalog/catalog.js';
import { internSettings, normalizeSettings } from '../../src/reservations/inventory.js';
import type { InventoryRow } from '../../src/reservations/inventory-store.js';
import { restaurantSettings } from '../support/restaurant.js';
import { sampleBusiness } from '../support/harness.js';

/** A database stand-in: rows stamped with catalogue sequence numbers, as the stores give them. */
function fakeSources() {
  let seq = 0;
  const businesses: Array<{ seq: number; business: Business }> = [];
  const inventories: InventoryRow[] = [];
  const page = <T extends { seq: number }>(
    rows: T[],
    id: (row: T) => string,
    after: number,
    upTo: number,
    cursor: { seq: number; id: string } | undefined,
    limit: number,
  ) =>
    rows
      .filter((r) => r.seq > after && r.seq <= upTo && (!cursor || r.seq > cursor.seq || (r.seq === cursor.seq && id(r) > cursor.id)))
      .sort((a, b) => a.seq - b.seq || (id(a) < id(b) ? -1 : 1))
      .slice(0, limit);
  const sources: CatalogSources = {
    sequence: async () => seq,
    businesses: async (after, upTo, cursor, limit) => page(businesses, (r) => r.business.id, after, upTo, cursor, limit),
    inventories: async (after, upTo, cursor, limit) => page(inventories, (r) => r.businessId, after, upTo, cursor, limit),
  };
  return {
    sources,
    /** One change: these businesses (replacing earlier rows of the same id) under the next number. */
    write(...changed: Array<Record<string, unknown>>) {
      seq++;
      for (const input of changed) {
        const business = normalizeBusinessInput(sampleBusiness(input));
        const at = businesses.findIndex((r) => r.business.id === business.id);
        if (at >= 0) businesses.splice(at, 1);
        businesses.push({ seq, business });
      }
    },
    settings(businessId: string, settings: unknown) {
      seq++;
      const at = inventories.findIndex((r) => r.businessId === businessId);
      if (at >= 0) inventories.splice(at, 1);
      inventories.push({
        seq,
        businessId,
        settings: internSettings(normalizeSettings(settings)),
        tables: [{ id: `${businessId}-t`, name: 'two', min_party: 1, max_party: 2 }],
      });
    },
  };
}

describe('the in-memory catalogue', () => {
  it('loads only what changed, and keeps lookups, areas and flags right through renames, moves and closings', async () => {
    const db = fakeSources();
    let wall = 0;
    const catalog = new Catalog(db.sources, 100, () => wall);
    db.write({ id: 'a', alias: 'first', name: 'First' }, { id: 'b', alias: 'second', name: 'Second' });
    await catalog.current();
    expect(catalog.lookup('first')?.id).toBe('a');
    const sf = catalog.areas.resolve('San Francisco')!;
    expect([...sf.members].map((o) => catalog.businesses[o].id).sort()).toEqual(['a', 'b']);
    const generation = catalog.generation;

    // Two businesses swap aliases in one change.
    db.write({ id: 'a', alias: 'second', name: 'First' }, { id: 'b', alias: 'first', name: 'Second' });
    wall += 200;
    await catalog.current();
    expect(catalog.lookup('second')?.id).toBe('a');
    expect(catalog.lookup('first')?.id).toBe('b');
    expect(catalog.changedSince(generation)?.sort()).toEqual([0, 1]);

    // Moved to Toronto: it leaves San Francisco's members and joins Toronto's; the version moves.
    const version = sf.version;
    db.write({
      id: 'b',
      alias: 'first',
      name: 'Second',
      timezone: 'America/Toronto',
      location: { city: 'Toronto', state: 'ON', country: 'CA', zip_code: 'M5V 2T6' },
      coordinates: { latitude: 43.65, longitude: -79.38 },
    });
    wall += 200;
    await catalog.current();
    expect([...sf.members].map((o) => catalog.businesses[o].id)).toEqual(['a']);
    expect(sf.version).toBeGreaterThan(version);
    expect([...catalog.areas.resolve('Toronto')!.members].map((o) => catalog.businesses[o].id)).toEqual(['b']);
    expect(catalog.areas.timezoneOf(catalog.areas.resolve('Toronto')!)).toBe('America/Toronto');

    // Closed: no longer searchable, and not in any area's members or the map.
    db.write({ id: 'a', alias: 'second', name: 'First', is_closed: true });
    wall += 200;
    await catalog.current();
    const a = catalog.lookup('a')!;
    expect(catalog.columns.flags[a.ordinal] & SEARCHABLE).toBe(0);
    expect(sf.members.size).toBe(0);
    expect([...catalog.grid.around(37.77, -122.42, 5000)]).toEqual([]);
  });

  it('reads its own writes: a refresh begun before a write does not answer for after it', async () => {
    const db = fakeSources();
    let wall = 0;
    let hold: Promise<void> | undefined;
    const sequence = db.sources.sequence;
    db.sources.sequence = async () => {
      const seq = await sequence();
      await hold;
      return seq;
    };
    const catalog = new Catalog(db.sources, 100, () => wall);
    db.write({ id: 'a', name: 'First' });
    await catalog.current();
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    wall += 200;
    const stale = catalog.current(); // reads the sequence now, answers when released
    db.write({ id: 'a', name: 'Renamed' }); // this process's write, committed meanwhile
    catalog.invalidate();
    const found = catalog.find('a');
    release();
    hold = undefined;
    await stale;
    expect((await found)?.name).toBe('Renamed');
  });

  it('marks restaurants reservable from their settings, and not when closed', async () => {
    const db = fakeSources();
    let wall = 0;
    const catalog = new Catalog(db.sources, 100, () => wall);
    db.write({ id: 'r', name: 'Restaurant' });
    db.settings('r', restaurantSettings);
    await catalog.current();
    const r = catalog.lookup('r')!;
    expect(catalog.columns.flags[r.ordinal] & RESERVABLE).toBe(RESERVABLE);
    expect(catalog.columns.maxFutureDays[r.ordinal]).toBe(restaurantSettings.max_future_days);
    db.settings('r', { ...restaurantSettings, accepts_reservations: false });
    wall += 200;
    await catalog.current();
    expect(catalog.columns.flags[r.ordinal] & RESERVABLE).toBe(0);
    db.settings('r', restaurantSettings);
    db.write({ id: 'r', name: 'Restaurant', is_closed: true });
    wall += 200;
    await catalog.current();
    expect(catalog.columns.flags[r.ordinal]).toBe(0);
    // Equal settings of two restaurants share their parts.
    db.write({ id: 's', name: 'Sister' });
    db.settings('s', JSON.parse(JSON.stringify(restaurantSettings)));
    wall += 200;
    await catalog.current();
    expect(catalog.lookup('s')!.reservation!.settings.service_hours).toBe(catalog.lookup('r')!.reservation!.settings.service_hours);
  });
});
