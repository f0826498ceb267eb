import { isSearchable, type Business } from '../businesses/business-record.js';
import { weeklyIntervals } from '../businesses/hours.js';
import type { InventoryRow } from '../reservations/inventory-store.js';
import type { RestaurantInventory } from '../reservations/occupancy.js';
import { AreaRegistry, type Area, type AreaStanding } from './areas.js';
import { ancestorsOf } from './categories.js';
import { GridIndex } from './grid.js';
import { catalogInterner } from '../platform/intern.js';
import { queryWords } from './text.js';
import { TermIndex, termsOf } from './term-index.js';

/** Flags of a business in `Catalog.flags`. */
export const SEARCHABLE = 1;
export const RESERVABLE = 2;

/**
 * One business as the catalogue holds it: what search filters and presents, what openings and
 * holds need (its reservation inventory). The full record stays in the database.
 */
export interface CatalogBusiness {
  /** Its position in the catalogue's columns; never changes. */
  readonly ordinal: number;
  readonly id: string;
  alias: string;
  name: string;
  timezone: string;
  isClosed: boolean;
  /** Moves on every change, so answers built from an older state can tell. */
  revision: number;
  /** Regular hours as minute-of-week intervals (businesses/hours.ts). */
  hours: Int32Array;
  /** Category aliases, with every ancestor's. */
  categories: readonly string[];
  /** Names of the attributes that are set (truthy). */
  attributes: readonly string[];
  /** Words it is found by, and how well each describes it (term-index.ts). */
  terms: ReadonlyMap<string, number>;
  /** Its name as query words (stopwords aside), joined: a term that equals it names the business. */
  nameKey: string;
  /** Present when the business has reservation settings. */
  reservation: RestaurantInventory | undefined;
}

/** Where the catalogue's data comes from: the owning families' exported functions. */
export interface CatalogSources {
  /** The last catalogue sequence number given out. */
  sequence(): Promise<number>;
  businesses(
    after: number,
    upTo: number,
    cursor: { seq: number; id: string } | undefined,
    limit: number,
  ): Promise<Array<{ seq: number; business: Business }>>;
  inventories(after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number): Promise<InventoryRow[]>;
}

/**
 * Rows loaded at a time. Small pages keep what a load parses short-lived, so it dies in the young
 * generation: with pages of 2,000, a load of 100,000 restaurants grew the heap to 720 MB for
 * 310 MB of catalogue (and kept it); with 500, to 480 MB, in the same time.
 */
const PAGE = 500;

/**
 * Lets the event loop answer what waits before the next page. On SQLite a page's query answers
 * synchronously, so without this a whole load ran in one turn of the loop: loading a country's
 * catalogue (1,000,000 businesses) left every request, /healthz included, unanswered for a
 * minute. A page is applied in tens of milliseconds.
 */
const betweenPages = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Changes remembered for `changedSince` (readers that fall further behind start over). */
const CHANGE_LOG_SIZE = 8_192;

/** Growable typed columns, by ordinal: what the search loops read without touching objects. */
class Columns {
  capacity = 0;
  flags = new Uint8Array(0);
  quality = new Float64Array(0);
  rating = new Float64Array(0);
  reviewCount = new Float64Array(0);
  latitude = new Float64Array(0);
  longitude = new Float64Array(0);
  priceLevel = new Uint8Array(0);
  /** Area ids of the business's city, postal code and state (areas.ts). */
  cityArea = new Int32Array(0);
  zipArea = new Int32Array(0);
  stateArea = new Int32Array(0);
  /** Booking horizon in days; -1 without reservation settings. */
  maxFutureDays = new Int16Array(0);
  noticeMinutes = new Int32Array(0);

  ensure(n: number): void {
    if (n <= this.capacity) return;
    const capacity = Math.max(1024, this.capacity * 2, n);
    const grow = <T extends Uint8Array | Int16Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      // Cast: TypeScript cannot pair a union's `set` with its own member; `old` and `next` are one kind.
      next.set(old as never);
      return next;
    };
    this.flags = grow(this.flags, (c) => new Uint8Array(c));
    this.quality = grow(this.quality, (c) => new Float64Array(c));
    this.rating = grow(this.rating, (c) => new Float64Array(c));
    this.reviewCount = grow(this.reviewCount, (c) => new Float64Array(c));
    this.latitude = grow(this.latitude, (c) => new Float64Array(c));
    this.longitude = grow(this.longitude, (c) => new Float64Array(c));
    this.priceLevel = grow(this.priceLevel, (c) => new Uint8Array(c));
    this.cityArea = grow(this.cityArea, (c) => new Int32Array(c));
    this.zipArea = grow(this.zipArea, (c) => new Int32Array(c));
    this.stateArea = grow(this.stateArea, (c) => new Int32Array(c));
    this.maxFutureDays = grow(this.maxFutureDays, (c) => new Int16Array(c));
    this.noticeMinutes = grow(this.noticeMinutes, (c) => new Int32Array(c));
    this.capacity = capacity;
  }
}

/**
 * The business catalogue and the restaurants' reservation inventory in memory, for search and
 * availability (docs/catalogue.md). Loaded once, then kept current incrementally: every change
 * stamps its rows with a catalogue sequence number, and each process loads only the rows changed
 * since the number it last saw — its own writes at once (`invalidate`), other processes' within
 * `maxStaleMs`, and at once when a lookup misses. Bookings are not here: see OccupancyIndex.
 */
export class Catalog {
  readonly columns = new Columns();
  readonly businesses: CatalogBusiness[] = [];
  readonly areas = new AreaRegistry();
  readonly terms = new TermIndex();
  readonly grid = new GridIndex();
  private readonly byIdOrAlias = new Map<string, CatalogBusiness>();
  /** The catalogue sequence number loaded up to. */
  private seq = -1;
  private checkedAt = 0;
  private invalidations = 0;
  private loading: Promise<void> | undefined;
  /** `invalidations` when the refresh under way was asked for. */
  private loadingSince = 0;
  /** Moves on every change applied; `changedSince` tells which businesses changed. */
  private generationCounter = 0;
  private changeLog: Array<{ generation: number; ordinal: number }> = [];
  private changeLogFrom = 0;

  constructor(
    private readonly sources: CatalogSources,
    private readonly maxStaleMs = 250,
    /** Wall time (staleness is about other processes, not the sandbox clock). */
    private readonly now: () => number = Date.now,
  ) {}

  get generation(): number {
    return this.generationCounter;
  }

  get size(): number {
    return this.businesses.length;
  }

  /**
   * Ordinals of the businesses changed after `generation`, or undefined when that is no longer
   * known (more changes than are remembered): then anything may have changed.
   */
  changedSince(generation: number): number[] | undefined {
    if (generation < this.changeLogFrom) return undefined;
    const out: number[] = [];
    for (let i = this.changeLog.length - 1; i >= 0 && this.changeLog[i].generation > generation; i--) out.push(this.changeLog[i].ordinal);
    return out;
  }

  /** Call after committing a change to businesses or reservation settings. */
  invalidate(): void {
    this.checkedAt = 0;
    this.invalidations++;
  }

  /** Brings the catalogue up to date when it may be stale; cheap when it is not. */
  async current(force = false): Promise<void> {
    await (force ? this.refreshOnce() : this.ready());
  }

  /**
   * As `current`, for a hot path: undefined when the catalogue is fresh enough to use at once (a
   * search then answers without a promise), else the refresh to wait for.
   */
  ready(): Promise<void> | undefined {
    const age = this.now() - this.checkedAt;
    if (this.seq < 0 || age >= this.maxStaleMs) return this.refreshOnce();
    if (age >= this.maxStaleMs / 2) this.refreshAhead();
    return undefined;
  }

  /** A business by id or alias without waiting, when the catalogue is fresh; undefined when `find` must be awaited. */
  findFresh(idOrAlias: string): CatalogBusiness | undefined {
    return this.ready() ? undefined : this.byIdOrAlias.get(idOrAlias);
  }

  /** A business by id or alias; a miss looks in the database again before answering undefined. */
  async find(idOrAlias: string): Promise<CatalogBusiness | undefined> {
    await this.current();
    const hit = this.byIdOrAlias.get(idOrAlias);
    if (hit) return hit;
    await this.current(true);
    return this.byIdOrAlias.get(idOrAlias);
  }

  /** By id or alias, as loaded (no freshness check: for callers that just called `current`). */
  lookup(idOrAlias: string): CatalogBusiness | undefined {
    return this.byIdOrAlias.get(idOrAlias);
  }

  area(id: number): Area {
    return this.areas.get(id);
  }

  /** One refresh at a time, shared by everyone who needs it. */
  private refreshOnce(): Promise<void> {
    if (this.loading && this.loadingSince === this.invalidations) return this.loading;
    // A refresh that began before this process's latest write may have read the sequence before
    // it: a reader after the write waits for one that begins after it (read your own writes).
    const before = this.loading?.catch(() => {});
    const loading = (before ? before.then(() => this.refresh()) : this.refresh()).finally(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    this.loading = loading;
    this.loadingSince = this.invalidations;
    return loading;
  }

  /** Past half its allowed staleness the catalogue is checked in the background, so requests do not all wait. */
  private refreshAhead(): void {
    if (!this.loading) this.refreshOnce().catch(() => {});
  }

  private async refresh(): Promise<void> {
    const readAt = this.now();
    const invalidations = this.invalidations;
    const upTo = await this.sources.sequence();
    if (upTo > this.seq || this.seq < 0) {
      const after = this.seq;
      for (let cursor: { seq: number; id: string } | undefined; ;) {
        const page = await this.sources.businesses(after, upTo, cursor, PAGE);
        for (const row of page) this.applyBusiness(row.business);
        if (page.length < PAGE) break;
        await betweenPages();
        const last = page[page.length - 1];
        cursor = { seq: last.seq, id: last.business.id };
      }
      for (let cursor: { seq: number; id: string } | undefined; ;) {
        const page = await this.sources.inventories(after, upTo, cursor, PAGE);
        for (const row of page) this.applyInventory(row);
        if (page.length < PAGE) break;
        await betweenPages();
        const last = page[page.length - 1];
        cursor = { seq: last.seq, id: last.businessId };
      }
      this.seq = Math.max(this.seq, upTo, 0);
    }
    // A change committed here meanwhile may not be in what was read: it must not count as seen.
    if (invalidations === this.invalidations) this.checkedAt = readAt;
  }

  private applyBusiness(business: Business): void {
    const c = this.columns;
    let entry = this.byIdOrAlias.get(business.id);
    if (entry && entry.id !== business.id) entry = undefined; // an alias that equals another's id
    const old = entry ? this.snapshotOf(entry) : undefined;
    if (!entry) {
      const ordinal = this.businesses.length;
      c.ensure(ordinal + 1);
      entry = {
        ordinal,
        id: business.id,
        alias: business.alias,
        name: business.name,
        timezone: catalogInterner.string(business.timezone),
        isClosed: business.is_closed,
        revision: 0,
        hours: weeklyIntervals(business.hours),
        categories: [],
        attributes: [],
        terms: new Map(),
        nameKey: '',
        reservation: undefined,
      };
      this.businesses.push(entry);
      c.maxFutureDays[ordinal] = -1;
      this.byIdOrAlias.set(business.id, entry);
    } else {
      this.terms.remove(entry.ordinal, entry.terms);
      if (entry.alias !== business.alias && this.byIdOrAlias.get(entry.alias) === entry) this.byIdOrAlias.delete(entry.alias);
    }
    const o = entry.ordinal;
    const intern = catalogInterner;
    entry.alias = business.alias;
    entry.name = business.name;
    entry.timezone = intern.string(business.timezone);
    entry.isClosed = business.is_closed;
    entry.revision++;
    entry.hours = weeklyIntervals(business.hours);
    // An Italian restaurant is also a restaurant: searches match a category's ancestors too.
    entry.categories = intern.value([
      ...new Set([
        ...business.categories.map((cat) => cat.alias),
        ...business.categories.flatMap((cat) => ancestorsOf(cat.alias).map((a) => a.alias)),
      ]),
    ]);
    entry.attributes = intern.value(Object.keys(business.attributes).filter((k) => Boolean(business.attributes[k])));
    entry.terms = termsOf(business, (word) => intern.string(word));
    entry.nameKey = queryWords(business.name)
      .map((w) => w.word)
      .join(' ');
    // Aliases are unique in the database: one held here by another business is that business's
    // old alias (its change is on its way, in this load); an id is never taken over.
    if (this.byIdOrAlias.get(business.alias)?.id !== business.alias) this.byIdOrAlias.set(business.alias, entry);
    this.terms.add(o, entry.terms);

    const { latitude, longitude } = business.coordinates;
    const searchable = isSearchable(business);
    c.flags[o] = (searchable ? SEARCHABLE : 0) | (entry.reservation?.settings.accepts_reservations && !business.is_closed ? RESERVABLE : 0);
    c.quality[o] = business.rating * Math.log10(business.review_count + 1);
    c.rating[o] = business.rating;
    c.reviewCount[o] = business.review_count;
    c.latitude[o] = latitude ?? NaN;
    c.longitude[o] = longitude ?? NaN;
    c.priceLevel[o] = business.price?.length ?? 0;
    const { city, state, zip_code: zip, country } = business.location;
    c.cityArea[o] = this.areas.city(city, state, country);
    c.zipArea[o] = zip ? this.areas.zip(zip, city, state) : -1;
    c.stateArea[o] = this.areas.state(state, country);
    this.placeInAreas(entry, old);
    this.recordChange(o);
  }

  private applyInventory(row: InventoryRow): void {
    const entry = this.byIdOrAlias.get(row.businessId);
    if (!entry || entry.id !== row.businessId) return;
    const c = this.columns;
    const o = entry.ordinal;
    entry.reservation = { businessId: entry.id, settings: row.settings, tables: row.tables, memo: undefined };
    entry.revision++;
    const reservable = row.settings.accepts_reservations && !entry.isClosed;
    c.flags[o] = (c.flags[o] & ~RESERVABLE) | (reservable ? RESERVABLE : 0);
    c.maxFutureDays[o] = row.settings.max_future_days;
    c.noticeMinutes[o] = row.settings.min_notice_minutes;
    // Where it stands in its areas does not depend on its inventory: only its row changes.
    this.recordChange(o);
  }

  /** What decides where a business stands in its areas, before a change. */
  private snapshotOf(entry: CatalogBusiness): AreaStanding {
    const c = this.columns;
    const o = entry.ordinal;
    return {
      areas: [c.cityArea[o], c.zipArea[o], c.stateArea[o]],
      searchable: (c.flags[o] & SEARCHABLE) !== 0,
      located: !Number.isNaN(c.latitude[o]) && !Number.isNaN(c.longitude[o]),
      latitude: c.latitude[o],
      longitude: c.longitude[o],
      quality: c.quality[o],
      timezone: entry.timezone,
    };
  }

  /** Moves a business between areas and grid cells after a change (`old`: how it stood before, if it existed). */
  private placeInAreas(entry: CatalogBusiness, old: AreaStanding | undefined): void {
    const now = this.snapshotOf(entry);
    const o = entry.ordinal;
    const oldAreas = old?.areas.filter((id) => id >= 0) ?? [];
    const newAreas = now.areas.filter((id) => id >= 0);
    for (const id of oldAreas) this.areas.leave(id, o, old!, !newAreas.includes(id));
    for (const id of newAreas)
      this.areas.join(id, o, now, !oldAreas.includes(id) || old!.quality !== now.quality || old!.searchable !== now.searchable);
    if (old?.searchable) this.grid.remove(o, old.latitude, old.longitude);
    if (now.searchable) this.grid.add(o, now.latitude, now.longitude);
  }

  private recordChange(ordinal: number): void {
    const generation = ++this.generationCounter;
    this.changeLog.push({ generation, ordinal });
    if (this.changeLog.length > CHANGE_LOG_SIZE) {
      const dropped = this.changeLog.splice(0, CHANGE_LOG_SIZE / 2);
      this.changeLogFrom = dropped[dropped.length - 1].generation;
    }
  }
}
