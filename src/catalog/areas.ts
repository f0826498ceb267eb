import { foldText } from './text.js';

/** How a business stands in its areas (Catalog keeps this per business, before and after a change). */
export interface AreaStanding {
  areas: number[];
  searchable: boolean;
  located: boolean;
  latitude: number;
  longitude: number;
  quality: number;
  timezone: string;
}

/** A place a search `location` can name: a city, a postal code or a state. */
export interface Area {
  readonly id: number;
  readonly kind: 'city' | 'zip' | 'state';
  /** How it is shown: "San Francisco, CA", "94103", "ON, CA". */
  readonly label: string;
  /** Ordinals of the searchable businesses in it. */
  readonly members: Set<number>;
  /** Moves when a business joins or leaves, or a member's quality (its best-match rank) changes. */
  version: number;
  /** Sums over its businesses that have coordinates, for the centre of a search. */
  sumLatitude: number;
  sumLongitude: number;
  located: number;
  /** Its members' time zones and how many are in each. */
  readonly timezones: Map<string, number>;
}

/**
 * The areas of the catalogue and the names a `location` may give them (docs/search.md
 * "Locations"): "San Francisco", "San Francisco, CA", "san francisco ca us", "94103",
 * "San Francisco CA 94103", "CA", "CA US". A name two areas could take belongs to the first.
 */
export class AreaRegistry {
  private readonly list: Area[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byName = new Map<string, number>();

  get(id: number): Area {
    return this.list[id];
  }

  city(city: string, state: string, country: string): number {
    return this.intern('city', `city:${city}|${state}`, `${city}, ${state}`, [
      city,
      `${city} ${state}`,
      `${city} ${state} ${country}`,
      `${city} ${country}`,
    ]);
  }

  zip(zip: string, city: string, state: string): number {
    return this.intern('zip', `zip:${zip}`, zip, [zip, `${city} ${state} ${zip}`]);
  }

  state(state: string, country: string): number {
    return this.intern('state', `state:${state}|${country}`, `${state}, ${country}`, [`${state} ${country}`, state]);
  }

  /** Resolves free text ("san francisco, ca", "94103", "Toronto ON", an address) to an area with businesses on the map. */
  resolve(location: string): Area | undefined {
    const text = foldText(location);
    const found = (name: string) => {
      const id = this.byName.get(name);
      return id !== undefined && this.list[id].located > 0 ? this.list[id] : undefined;
    };
    const exact = found(text);
    if (exact) return exact;
    // Addresses: ever shorter tails ("1 Market St San Francisco CA" → "san francisco ca").
    const words = text.split(' ');
    for (let i = 1; i < words.length; i++) {
      const tail = found(words.slice(i).join(' '));
      if (tail) return tail;
    }
    return undefined;
  }

  center(area: Area): { latitude: number; longitude: number } {
    return { latitude: area.sumLatitude / area.located, longitude: area.sumLongitude / area.located };
  }

  /** The one time zone of an area's members, or undefined when they are in several (or none). */
  timezoneOf(area: Area): string | undefined {
    if (area.timezones.size !== 1) return undefined;
    return area.timezones.keys().next().value;
  }

  /** A business was in area `id` as `old`; `gone`: it is no longer. */
  leave(id: number, ordinal: number, old: AreaStanding, gone: boolean): void {
    const area = this.list[id];
    if (old.located) {
      area.sumLatitude -= old.latitude;
      area.sumLongitude -= old.longitude;
      area.located--;
    }
    if (old.searchable) {
      area.members.delete(ordinal);
      const n = (area.timezones.get(old.timezone) ?? 1) - 1;
      if (n === 0) area.timezones.delete(old.timezone);
      else area.timezones.set(old.timezone, n);
      if (gone) area.version++;
    }
  }

  /** A business is in area `id` as `now`; `moved`: it joined, or its rank or searchability changed. */
  join(id: number, ordinal: number, now: AreaStanding, moved: boolean): void {
    const area = this.list[id];
    if (now.located) {
      area.sumLatitude += now.latitude;
      area.sumLongitude += now.longitude;
      area.located++;
    }
    if (now.searchable) {
      area.members.add(ordinal);
      area.timezones.set(now.timezone, (area.timezones.get(now.timezone) ?? 0) + 1);
    }
    if (moved) area.version++;
  }

  private intern(kind: Area['kind'], key: string, label: string, names: string[]): number {
    let id = this.byKey.get(key);
    if (id !== undefined) return id;
    id = this.list.length;
    this.list.push({ id, kind, label, members: new Set(), version: 0, sumLatitude: 0, sumLongitude: 0, located: 0, timezones: new Map() });
    this.byKey.set(key, id);
    for (const name of names) {
      const folded = foldText(name);
      if (folded !== '' && !this.byName.has(folded)) this.byName.set(folded, id);
    }
    return id;
  }
}
