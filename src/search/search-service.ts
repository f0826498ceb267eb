import type { Area } from '../catalog/areas.js';
import { RESERVABLE, SEARCHABLE, type Catalog, type CatalogBusiness } from '../catalog/catalog.js';
import { SCORE, WHOLE_NAME, type WordMatch } from '../catalog/term-index.js';
import type { QueryWord } from '../catalog/text.js';
import { includesMinute, isOpenDuring, minuteOfWeek } from '../businesses/hours.js';
import type { Clock } from '../platform/clock.js';
import { apiError } from '../platform/errors.js';
import { bookableMinutes, dayContext, type DayContext } from '../reservations/availability.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';
import { ColumnBudget } from './area-columns.js';
import { AreaIndex } from './area-index.js';
import type { RecordParts, SearchRecords } from './records.js';
import { searchAnswer, type AnswerEntry } from './search-answer.js';
import { parseSearchParams, type SearchParams } from './search-params.js';
import { afterwards, type AtOnceOrLater } from '../platform/at-once.js';
import { BoundedMap } from '../platform/bounded-map.js';
import { comparators, distanceMeters, type Hit, TopK } from './ranking.js';

const DEFAULT_RADIUS_M = 10_000;
const SEARCH_OPENINGS_WINDOW = 30;
/** Areas whose index is kept (each holds bitsets over its members; the least recently searched go first). */
const MAX_AREA_INDEXES = 64;
/** Areas whose share of one word's matches is kept (`withinArea`). */
const MAX_AREAS_PER_WORD = 16;

/** What every hit of one request is measured against. */
interface Request {
  params: SearchParams;
  /** The term's words found somewhere in the catalogue, and whom each matches (the others are left out). */
  words: QueryWord[];
  matches: WordMatch[];
  center: { latitude: number; longitude: number };
  area: Area | undefined;
  now: number;
  days: Map<string, DayContext>;
}

/**
 * Business search (docs/contract/search.md §2) with the reservation extension (spec "Reservation search"), over
 * the in-memory catalogue (docs/search.md). A named area searched without words of its own,
 * in best-match order, is answered from the area's bitsets (AreaIndex); everything else walks
 * the candidates of its most selective part: a word's matches, the area's members, or the map
 * cells around a point.
 */
export class SearchService {
  private readonly areaIndexes = new Map<number, AreaIndex>();
  /** Each remembered word's matches within the areas it was searched in (`withinArea`); a word the term index forgets goes with them. */
  private readonly wordsInAreas = new WeakMap<WordMatch, Map<number, { generation: number; ordinals: Int32Array; scores: Uint8Array }>>();
  private readonly budget = new ColumnBudget();

  constructor(
    private readonly clock: Clock,
    private readonly catalog: Catalog,
    private readonly occupancy: OccupancyIndex,
    private readonly records: SearchRecords,
  ) {}

  /**
   * The answer as JSON bytes: at once when the catalogue (and, for a reservation search, the
   * occupancy index) is current and the page's records are kept, as openings answers (nearly
   * always); as a promise only when one of them must be brought up to date or read first.
   */
  search(query: Record<string, unknown>): AtOnceOrLater<Buffer> {
    const params = parseSearchParams(query);
    const catalogue = this.catalog.ready();
    const occupancy = params.reservation !== undefined && !this.occupancy.synced();
    if (!catalogue && !occupancy) return this.answer(params);
    return (async () => {
      await catalogue;
      if (params.reservation) await this.occupancy.sync();
      return this.answer(params);
    })();
  }

  private answer(params: SearchParams): AtOnceOrLater<Buffer> {
    let center: { latitude: number; longitude: number };
    let area: Area | undefined;
    if (params.latitude !== undefined && params.longitude !== undefined) {
      center = { latitude: params.latitude, longitude: params.longitude };
    } else {
      area = this.catalog.areas.resolve(params.location!);
      if (!area) throw apiError('LOCATION_NOT_FOUND');
      center = this.catalog.areas.center(area);
    }
    // A word found nowhere in the catalogue is left out ("cozy italian" is "italian"), unless no word is found.
    const matches = params.words.map((w) => this.catalog.terms.match(w));
    const words = params.words.filter((_, i) => matches[i].size > 0);
    if (params.words.length > 0 && words.length === 0)
      return this.render({ params, words, matches, center, area, now: this.clock.now(), days: new Map() }, [], 0);
    const request: Request = {
      params,
      words,
      matches: matches.filter((m) => m.size > 0),
      center,
      area,
      now: this.clock.now(),
      days: new Map(),
    };
    if (this.fastPathApplies(request)) {
      const { hits, total, index } = this.fromAreaIndex(request);
      const r = params.reservation;
      // The openings of the page come from the columns the availability was just read from.
      const openings = r
        ? (hit: Hit) => {
            const entry = this.catalog.businesses[hit.ordinal];
            const slots = index.openSlots(hit.ordinal, r.date, r.covers);
            if (!slots || !entry.reservation) return this.openingsOf(request, entry);
            const day = this.dayFor(request, entry.timezone, r.date);
            return bookableMinutes(
              day,
              slots,
              entry.reservation.settings,
              r.minutes - SEARCH_OPENINGS_WINDOW,
              r.minutes + SEARCH_OPENINGS_WINDOW,
            );
          }
        : undefined;
      return this.render(request, hits.slice(params.offset), total, openings);
    }
    const { hits, total } = this.byCandidates(request);
    return this.render(request, hits.slice(params.offset, params.offset + params.limit), total);
  }

  /** A named area, at most one word of its own besides generic ones, best-match order, filters every member shares the meaning of. */
  private fastPathApplies({ params, area, words }: Request): boolean {
    if (!area || params.radius !== undefined || params.sortBy !== 'best_match' || params.openNow || params.openAt !== undefined)
      return false;
    if (words.filter((w) => !w.generic).length > 1) return false;
    return !params.reservation?.matchesPartySize || this.catalog.areas.timezoneOf(area) !== undefined;
  }

  private fromAreaIndex(request: Request): { hits: Hit[]; total: number; index: AreaIndex } {
    const { params, area, now } = request;
    const index = this.areaIndex(area!);
    const reservation = params.reservation;
    const own = request.words.findIndex((w) => !w.generic);
    const generic = request.words.length - (own >= 0 ? 1 : 0);
    const { tiers, total } = index.evaluate({
      categories: params.categories,
      prices: params.prices,
      attributes: params.attributes,
      generic: generic > 0,
      availability: reservation?.matchesPartySize ? reservation : undefined,
      word: own >= 0 ? { text: request.words[own].word, match: request.matches[own], wholeName: generic === 0 } : undefined,
      now,
    });
    // A generic word scores 1 wherever it matches (term-index.ts), as in the general path.
    const hits = index
      .page(tiers, params.offset + params.limit)
      .map((h) => ({ ordinal: index.members[h.position], relevance: h.relevance + generic, distance: NaN }));
    return { hits: this.sorted(request, hits, params.offset + params.limit), total, index };
  }

  private areaIndex(area: Area): AreaIndex {
    let index = this.areaIndexes.get(area.id);
    if (index) this.areaIndexes.delete(area.id);
    else {
      index = new AreaIndex(area, this.catalog, this.occupancy, this.budget);
      if (this.areaIndexes.size >= MAX_AREA_INDEXES) {
        const [oldest, evicted] = this.areaIndexes.entries().next().value!;
        for (const column of evicted.columns.values()) this.budget.drop(column);
        this.areaIndexes.delete(oldest);
      }
    }
    this.areaIndexes.set(area.id, index);
    index.sync();
    return index;
  }

  /** Every candidate of the most selective part of the request, checked against the rest. */
  private byCandidates(request: Request): { hits: Hit[]; total: number } {
    const { params, area, center } = request;
    const c = this.catalog.columns;
    const businesses = this.catalog.businesses;
    const { words, matches } = request;
    const specific = words.filter((w) => !w.generic);
    const generic = words.length > specific.length;
    const byLocation = params.latitude !== undefined;
    const maxDistance = params.radius ?? (byLocation ? DEFAULT_RADIUS_M : Infinity);
    const areaColumn = area === undefined ? undefined : area.kind === 'city' ? c.cityArea : area.kind === 'zip' ? c.zipArea : c.stateArea;

    // The candidates: the smallest word's matches (within the area, when one is named), else the
    // area's members, else the cells around the point.
    let driver = -1;
    for (let i = 0; i < matches.length; i++) if (!words[i].generic && (driver < 0 || matches[i].size < matches[driver].size)) driver = i;
    if (driver < 0 && generic && area === undefined) driver = matches.findIndex((_, i) => words[i].generic);
    const driven = driver < 0 ? undefined : area === undefined ? matches[driver] : this.withinArea(matches[driver], area, areaColumn!);
    const candidates: Iterable<number> =
      driven !== undefined
        ? driven.ordinals
        : area !== undefined
          ? area.members
          : this.catalog.grid.around(center.latitude, center.longitude, maxDistance);
    const others = matches.map((m, i) => (i === driver ? undefined : m.dense(c.capacity)));
    const driverScores = driven?.scores;

    const reservation = params.reservation;
    const openInstant = params.openNow ? request.now : params.openAt !== undefined ? params.openAt * 1000 : undefined;
    const wholeName = specific.length > 0 ? words.map((w) => w.word).join(' ') : undefined;
    const limit = params.offset + params.limit;
    const best = new TopK<Hit>(limit, comparators[params.sortBy](this.catalog, center));
    let total = 0;
    let k = -1;
    for (const o of candidates) {
      k++;
      if ((c.flags[o] & SEARCHABLE) === 0) continue;
      if (areaColumn !== undefined && areaColumn[o] !== area!.id) continue;
      let relevance = driverScores ? driverScores[k] : 0;
      let matched = true;
      for (const dense of others) {
        if (!dense) continue;
        const s = dense[o];
        if (s === 0) {
          matched = false;
          break;
        }
        relevance += s;
      }
      if (!matched) continue;
      const entry = businesses[o];
      if (params.categories.length > 0 && !params.categories.some((alias) => entry.categories.includes(alias))) continue;
      if (params.prices.length > 0 && !params.prices.includes(c.priceLevel[o])) continue;
      if (
        params.attributes.length > 0 &&
        !params.attributes.every((a) => (a === 'reservation' ? (c.flags[o] & RESERVABLE) !== 0 : entry.attributes.includes(a)))
      )
        continue;
      if (openInstant !== undefined && !isOpenDuring(entry.hours, entry.timezone, openInstant)) continue;
      let distance = NaN;
      if (maxDistance !== Infinity) {
        distance = distanceMeters(center, c.latitude[o], c.longitude[o]);
        if (distance > maxDistance) continue;
      }
      if (reservation?.matchesPartySize && !this.hasOpening(request, entry)) continue;
      // Only a business whose every matched word is a name word can be named by the whole term.
      if (wholeName !== undefined && relevance === SCORE.NAME * words.length && entry.nameKey === wholeName) relevance += WHOLE_NAME;
      total++;
      const hit = { ordinal: o, relevance, distance };
      if (best.accepts(hit)) best.insert(hit);
    }
    return { hits: best.items, total };
  }

  /**
   * A word's matches within a named area. A word's matches span every area: at 100,000
   * restaurants in ten metros, "wine bar" searched in one metro walked every metro's wine bars on
   * every request (plain search cost 54 µs a request against 45 µs at 10,000). Worked out once per
   * word, area and state of the catalogue (any change to it moves `catalog.generation`).
   */
  private withinArea(match: WordMatch, area: Area, areaColumn: Int32Array): { ordinals: Int32Array; scores: Uint8Array } {
    let byArea = this.wordsInAreas.get(match);
    if (!byArea) this.wordsInAreas.set(match, (byArea = new BoundedMap(MAX_AREAS_PER_WORD)));
    const generation = this.catalog.generation;
    const kept = byArea.get(area.id);
    if (kept?.generation === generation) return kept;
    let n = 0;
    for (let k = 0; k < match.ordinals.length; k++) if (areaColumn[match.ordinals[k]] === area.id) n++;
    const ordinals = new Int32Array(n);
    const scores = new Uint8Array(n);
    n = 0;
    for (let k = 0; k < match.ordinals.length; k++)
      if (areaColumn[match.ordinals[k]] === area.id) {
        ordinals[n] = match.ordinals[k];
        scores[n++] = match.scores[k];
      }
    const found = { generation, ordinals, scores };
    byArea.set(area.id, found);
    return found;
  }

  /** `hits` in the request's order, the first `limit` of them. */
  private sorted(request: Request, hits: Hit[], limit: number): Hit[] {
    return hits.sort(comparators[request.params.sortBy](this.catalog, request.center)).slice(0, limit);
  }

  private dayFor(request: Request, timezone: string, date: string): DayContext {
    let day = request.days.get(timezone);
    if (!day) request.days.set(timezone, (day = dayContext(request.now, timezone, date)));
    return day;
  }

  /** Whether the restaurant has a slot a guest may book now within ±30 minutes of the time asked. */
  private hasOpening(request: Request, entry: CatalogBusiness): boolean {
    return this.openingsOf(request, entry, 1).length > 0;
  }

  private openingsOf(request: Request, entry: CatalogBusiness, limit?: number): number[] {
    const r = request.params.reservation!;
    const inventory = entry.reservation;
    if (!inventory) return [];
    const day = this.dayFor(request, entry.timezone, r.date);
    const slots = this.occupancy.day(inventory, day, r.covers);
    return bookableMinutes(day, slots, inventory.settings, r.minutes - SEARCH_OPENINGS_WINDOW, r.minutes + SEARCH_OPENINGS_WINDOW, limit);
  }

  /** The answer's bytes: the page's kept record parts with this request's values (search-answer.ts). */
  private render(request: Request, page: Hit[], total: number, openings?: (hit: Hit) => number[]): AtOnceOrLater<Buffer> {
    const businesses = page.map((h) => this.catalog.businesses[h.ordinal]);
    return afterwards(this.records.get(businesses), (parts) => this.write(request, page, businesses, parts, total, openings));
  }

  private write(
    request: Request,
    page: Hit[],
    businesses: CatalogBusiness[],
    parts: Array<RecordParts | undefined>,
    total: number,
    openings?: (hit: Hit) => number[],
  ): Buffer {
    const c = this.catalog.columns;
    const entries: AnswerEntry[] = [];
    // A page's businesses mostly share one time zone: its minute of the week is worked out once.
    let zone = '';
    let minute = 0;
    for (let i = 0; i < page.length; i++) {
      const p = parts[i];
      if (!p) continue;
      const hit = page[i];
      const entry = businesses[i];
      if (entry.timezone !== zone) {
        zone = entry.timezone;
        minute = minuteOfWeek(request.now, zone);
      }
      const distance = Number.isNaN(hit.distance)
        ? distanceMeters(request.center, c.latitude[hit.ordinal], c.longitude[hit.ordinal])
        : hit.distance;
      entries.push({
        parts: p,
        distance,
        openNow: includesMinute(entry.hours, minute),
        openings: request.params.reservation ? (openings ? openings(hit) : this.openingsOf(request, entry)) : undefined,
      });
    }
    return searchAnswer(entries, total, request.center);
  }
}
