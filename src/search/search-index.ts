import type { Business } from '../businesses/business-record.js';
import { CATALOG_VERSION_KEY, fromRecord } from '../businesses/business-store.js';
import type { Db } from '../platform/db/database.js';
import { localParts } from '../platform/local-time.js';
import { SettingsStore } from '../platform/settings.js';
import type { ReservationSettings } from '../reservations/inventory.js';
import type { TableRow } from '../reservations/reservation-store.js';

export interface IndexedBusiness {
  business: Business;
  /** Lower-cased name, category aliases and titles: what `term` is matched against. */
  text: string;
  nameLower: string;
  categories: Set<string>;
  priceLevel: number;
  reservation?: { settings: ReservationSettings; tables: TableRow[] };
}

export interface Area {
  label: string;
  center: { latitude: number; longitude: number };
  contains(b: Business): boolean;
}

/**
 * An in-memory copy of the business catalogue for search, rebuilt when the catalogue version in
 * the database changes (every business or reservation-settings write bumps it), so processes
 * sharing a database stay in step with one cheap read per search.
 */
export class SearchIndex {
  private version: string | undefined;
  private entries: IndexedBusiness[] = [];
  private areas = new Map<string, Area>();
  private loading: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  async current(): Promise<{ entries: IndexedBusiness[]; areas: Map<string, Area> }> {
    const version = (await new SettingsStore(this.db).get(CATALOG_VERSION_KEY)) ?? 'empty';
    if (version !== this.version) {
      this.loading ??= this.load(version).finally(() => {
        this.loading = undefined;
      });
      await this.loading;
    }
    return { entries: this.entries, areas: this.areas };
  }

  private async load(version: string): Promise<void> {
    const rows = await this.db.selectFrom('businesses').select(['record', 'is_closed']).execute();
    const settings = await this.db.selectFrom('restaurant_settings').select(['business_id', 'settings']).execute();
    const tables = await this.db.selectFrom('restaurant_tables').selectAll().where('active', '=', 1).orderBy('max_party').orderBy('name').execute();
    const tablesByBusiness = new Map<string, TableRow[]>();
    for (const t of tables) {
      const list = tablesByBusiness.get(t.business_id) ?? [];
      list.push(t);
      tablesByBusiness.set(t.business_id, list);
    }
    const settingsByBusiness = new Map(settings.map((s) => [s.business_id, JSON.parse(s.settings) as ReservationSettings]));
    const entries: IndexedBusiness[] = [];
    for (const row of rows) {
      const business = fromRecord(row.record, row.is_closed);
      const s = settingsByBusiness.get(business.id);
      entries.push({
        business,
        text: [business.name, ...business.categories.flatMap((c) => [c.alias, c.title])].join(' ').toLowerCase(),
        nameLower: business.name.toLowerCase(),
        categories: new Set(business.categories.map((c) => c.alias)),
        priceLevel: business.price?.length ?? 0,
        ...(s ? { reservation: { settings: s, tables: tablesByBusiness.get(business.id) ?? [] } } : {}),
      });
    }
    this.entries = entries;
    this.areas = buildAreas(entries);
    this.version = version;
  }
}

const normalize = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Areas a `location` can name: cities (alone or with state / country), postal codes and states. */
function buildAreas(entries: IndexedBusiness[]): Map<string, Area> {
  const groups = new Map<string, { label: string; members: Business[]; test: (b: Business) => boolean }>();
  const add = (keys: string[], label: string, b: Business, test: (x: Business) => boolean) => {
    for (const key of keys) {
      const k = normalize(key);
      if (!k) continue;
      const g = groups.get(k) ?? { label, members: [], test };
      g.members.push(b);
      groups.set(k, g);
    }
  };
  for (const { business: b } of entries) {
    const { city, state, zip_code: zip, country } = b.location;
    add([city, `${city} ${state}`, `${city} ${state} ${country}`, `${city} ${country}`], `${city}, ${state}`, b, (x) => x.location.city === city && x.location.state === state);
    if (zip) add([zip, `${city} ${state} ${zip}`], zip, b, (x) => x.location.zip_code === zip);
    add([`${state} ${country}`, state], `${state}, ${country}`, b, (x) => x.location.state === state && x.location.country === country);
  }
  const areas = new Map<string, Area>();
  for (const [key, g] of groups) {
    const located = g.members.filter((m) => m.coordinates.latitude !== null && m.coordinates.longitude !== null);
    if (located.length === 0) continue;
    const latitude = located.reduce((s, m) => s + m.coordinates.latitude!, 0) / located.length;
    const longitude = located.reduce((s, m) => s + m.coordinates.longitude!, 0) / located.length;
    areas.set(key, { label: g.label, center: { latitude, longitude }, contains: g.test });
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
  const { date, minutes } = localParts(ms, b.timezone);
  const [y, m, d] = date.split('-').map(Number);
  const day = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  const hhmm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(2));
  return intervals.some((o) => {
    const start = hhmm(o.start);
    const end = hhmm(o.end);
    if (o.day === day && minutes >= start && (o.is_overnight || end <= start || minutes < end)) return true;
    // The tail of yesterday's overnight interval.
    return (o.is_overnight || end <= start) && o.day === (day + 6) % 7 && minutes < end;
  });
}
