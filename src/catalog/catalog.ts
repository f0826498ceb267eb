import type { Business } from '../businesses/business-record.js';
import { catalogVersion } from '../businesses/catalog-version.js';
import { ancestorsOf } from './categories.js';
import type { Db } from '../platform/db/database.js';
import { localMinute } from '../platform/local-time.js';
import type { ReservationSettings } from '../reservations/inventory.js';
import type { RestaurantInventory } from '../reservations/occupancy.js';
import type { TableRow } from '../reservations/reservation-store.js';

export interface IndexedBusiness {
  business: Business;
  /** Position in the snapshot's `entries`: lets per-snapshot caches use flat arrays. */
  ordinal: number;
  /** Open, reviewed and placed on the map: what search can return at all. */
  searchable: boolean;
  /** Rating weighted by how many reviews back it (best_match); kept here so search need not touch `business`. */
  quality: number;
  latitude: number | null;
  longitude: number | null;
  /** Keys of the areas (city, postal code, state) the business lies in. */
  areaKeys: Set<string>;
  /** Lower-cased name, category aliases and titles: what `term` is matched against. */
  text: string;
  nameLower: string;
  categories: Set<string>;
  priceLevel: number;
  /** Present (not undefined) when the business has reservation settings. */
  reservation: RestaurantInventory | undefined;
}

export interface Area {
  label: string;
  /** Matches IndexedBusiness.areaKeys. */
  key: string;
  center: { latitude: number; longitude: number };
}

/** Where the catalogue's data comes from: the owning families' exported functions. */
export interface CatalogSources {
  businesses(): Promise<Business[]>;
  inventories(): Promise<{ settings: Map<string, ReservationSettings>; tables: TableRow[] }>;
}

export interface Snapshot {
  entries: IndexedBusiness[];
  byIdOrAlias: Map<string, IndexedBusiness>;
  areas: Map<string, Area>;
  /** Searchable entries (see `IndexedBusiness.searchable`) by area key, in `entries` order. */
  searchableByArea: Map<string, IndexedBusiness[]>;
}

/**
 * An in-memory copy of the business catalogue and the restaurants' reservation inventory, for
 * search and availability. Writes in this process invalidate it at once; a write by another
 * process (every write bumps the catalogue version in the database) is noticed within
 * `maxStaleMs`, and at once when a lookup misses. Bookings are not here: see OccupancyIndex.
 */
export class Catalog {
  private version: string | undefined;
  private snapshot: Snapshot = { entries: [], byIdOrAlias: new Map(), areas: new Map(), searchableByArea: new Map() };
  private checkedAt = 0;
  private generation = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly sources: CatalogSources,
    private readonly maxStaleMs = 250,
    /** Wall time (staleness is about other processes, not the sandbox clock). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Call after committing a change to businesses or reservation settings. */
  invalidate(): void {
    this.checkedAt = 0;
    // A refresh under way may have read the version before this change: it must not count.
    this.generation++;
    this.loading = undefined;
  }

  async current(force = false): Promise<Snapshot> {
    const age = this.now() - this.checkedAt;
    if (force || this.version === undefined || age >= this.maxStaleMs) await this.refreshOnce();
    else if (age >= this.maxStaleMs / 2) this.refreshAhead();
    return this.snapshot;
  }

  /** One refresh at a time, shared by everyone who needs it. */
  private refreshOnce(): Promise<void> {
    if (this.loading) return this.loading;
    const loading = this.refresh().finally(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    this.loading = loading;
    return loading;
  }

  /**
   * Past half its allowed staleness the snapshot is re-checked in the background, so requests
   * do not all wait for the database when it goes stale (on PostgreSQL that wait was a latency
   * spike four times a second).
   */
  private refreshAhead(): void {
    if (!this.loading) this.refreshOnce().catch(() => {});
  }

  /**
   * The answer of `find` without waiting, when the snapshot is fresh and holds the business;
   * undefined when `find` must be awaited (the hot paths try this first and save a promise).
   */
  findFresh(idOrAlias: string): IndexedBusiness | undefined {
    const age = this.now() - this.checkedAt;
    if (this.version === undefined || age >= this.maxStaleMs) return undefined;
    if (age >= this.maxStaleMs / 2) this.refreshAhead();
    return this.snapshot.byIdOrAlias.get(idOrAlias);
  }

  /** A business by id or alias; a miss re-checks the database before answering undefined. */
  async find(idOrAlias: string): Promise<IndexedBusiness | undefined> {
    const hit = (await this.current()).byIdOrAlias.get(idOrAlias);
    if (hit) return hit;
    return (await this.current(true)).byIdOrAlias.get(idOrAlias);
  }

  private async refresh(): Promise<void> {
    // Fresh as of the version read, not of the end of the load.
    const readAt = this.now();
    const generation = this.generation;
    const version = (await catalogVersion(this.db)) ?? 'empty';
    if (version !== this.version) await this.load(version, generation);
    if (generation === this.generation) this.checkedAt = readAt;
  }

  private async load(version: string, generation: number): Promise<void> {
    const businesses = await this.sources.businesses();
    const { settings: settingsByBusiness, tables } = await this.sources.inventories();
    const tablesByBusiness = new Map<string, TableRow[]>();
    for (const t of tables) {
      const list = tablesByBusiness.get(t.business_id) ?? [];
      list.push(t);
      tablesByBusiness.set(t.business_id, list);
    }
    const entries: IndexedBusiness[] = [];
    const byIdOrAlias = new Map<string, IndexedBusiness>();
    for (const business of businesses) {
      const s = settingsByBusiness.get(business.id);
      const { city, state, zip_code: zip, country } = business.location;
      // An Italian restaurant is also a restaurant: searches match a category's ancestors too.
      const withAncestors = [...business.categories, ...business.categories.flatMap((c) => ancestorsOf(c.alias))];
      const entry: IndexedBusiness = {
        business,
        ordinal: entries.length,
        quality: business.rating * Math.log10(business.review_count + 1),
        searchable: !business.is_closed && business.review_count > 0 && business.coordinates.latitude !== null && business.coordinates.longitude !== null,
        latitude: business.coordinates.latitude,
        longitude: business.coordinates.longitude,
        areaKeys: new Set([cityKey(city, state), zipKey(zip), stateKey(state, country)]),
        text: [business.name, ...withAncestors.flatMap((c) => [c.alias, c.title])].join(' ').toLowerCase(),
        nameLower: business.name.toLowerCase(),
        categories: new Set(withAncestors.map((c) => c.alias)),
        priceLevel: business.price?.length ?? 0,
        // Always set, so every entry has the same shape (keeps the search loop monomorphic).
        reservation: s ? { businessId: business.id, settings: s, tables: tablesByBusiness.get(business.id) ?? [], memo: undefined } : undefined,
      };
      entries.push(entry);
      byIdOrAlias.set(business.id, entry);
      byIdOrAlias.set(business.alias, entry);
    }
    const searchableByArea = new Map<string, IndexedBusiness[]>();
    for (const entry of entries) {
      if (!entry.searchable) continue;
      for (const key of entry.areaKeys) {
        const list = searchableByArea.get(key);
        if (list) list.push(entry);
        else searchableByArea.set(key, [entry]);
      }
    }
    if (generation !== this.generation) return; // invalidated meanwhile: a newer refresh follows
    this.snapshot = { entries, byIdOrAlias, areas: buildAreas(entries), searchableByArea };
    this.version = version;
  }
}

const cityKey = (city: string, state: string) => `city:${city}|${state}`;
const zipKey = (zip: string) => `zip:${zip}`;
const stateKey = (state: string, country: string) => `state:${state}|${country}`;

const normalize = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Areas a `location` can name: cities (alone or with state / country), postal codes and states. */
function buildAreas(entries: IndexedBusiness[]): Map<string, Area> {
  const groups = new Map<string, { label: string; key: string; lat: number; lon: number; n: number }>();
  const add = (names: string[], label: string, key: string, e: IndexedBusiness) => {
    for (const name of names) {
      const k = normalize(name);
      if (!k) continue;
      const g = groups.get(k) ?? { label, key, lat: 0, lon: 0, n: 0 };
      if (e.latitude !== null && e.longitude !== null) {
        g.lat += e.latitude;
        g.lon += e.longitude;
        g.n += 1;
      }
      groups.set(k, g);
    }
  };
  for (const e of entries) {
    const { city, state, zip_code: zip, country } = e.business.location;
    add([city, `${city} ${state}`, `${city} ${state} ${country}`, `${city} ${country}`], `${city}, ${state}`, cityKey(city, state), e);
    if (zip) add([zip, `${city} ${state} ${zip}`], zip, zipKey(zip), e);
    add([`${state} ${country}`, state], `${state}, ${country}`, stateKey(state, country), e);
  }
  const areas = new Map<string, Area>();
  for (const [name, g] of groups) {
    if (g.n === 0) continue;
    areas.set(name, { label: g.label, key: g.key, center: { latitude: g.lat / g.n, longitude: g.lon / g.n } });
  }
  return areas;
}

/** Resolves free text ("san francisco, ca", "94103", "Toronto ON") to a known area. */
export function resolveArea(areas: Map<string, Area>, location: string): Area | undefined {
  const text = normalize(location);
  const exact = areas.get(text);
  if (exact) return exact;
  // Addresses: try ever shorter tails ("1 Market St San Francisco CA" → "san francisco ca").
  const words = text.split(' ');
  for (let i = 1; i < words.length; i++) {
    const tail = areas.get(words.slice(i).join(' '));
    if (tail) return tail;
  }
  return undefined;
}

export function distanceMeters(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** Whether the business's regular hours include the instant `ms` (overnight intervals included). */
export function isOpenAt(b: Business, ms: number): boolean {
  const intervals = b.hours[0]?.open ?? [];
  if (intervals.length === 0) return false;
  const { minutes, weekday: day } = localMinute(ms, b.timezone);
  const hhmm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(2));
  return intervals.some((o) => {
    const start = hhmm(o.start);
    const end = hhmm(o.end);
    if (o.day === day && minutes >= start && (o.is_overnight || end <= start || minutes < end)) return true;
    // The tail of yesterday's overnight interval.
    return (o.is_overnight || end <= start) && o.day === (day + 6) % 7 && minutes < end;
  });
}
