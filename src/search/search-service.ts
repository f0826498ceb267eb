import type { Clock } from '../platform/clock.js';
import { apiError } from '../platform/errors.js';
import { addDays, formatHHMM, localDate, localDay } from '../platform/local-time.js';
import { bookableMinutes, dayContext, type DayContext } from '../reservations/availability.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';
import { parseBoolean, parseDateTimeCovers } from '../reservations/params.js';
import { list, single } from '../platform/query.js';
import { type Catalog, distanceMeters, isOpenAt, resolveArea, type IndexedBusiness } from '../catalog/catalog.js';

/** Results reachable through limit/offset (facts.md §2.1: 240 in current docs). */
export const RESULT_CAP = 240;
const DEFAULT_RADIUS_M = 10_000;
const MAX_RADIUS_M = 40_000;
const SEARCH_OPENINGS_WINDOW = 30;
const LOCALES = new Set(
  'cs_CZ da_DK de_AT de_CH de_DE en_AU en_BE en_CA en_CH en_GB en_HK en_IE en_MY en_NZ en_PH en_SG en_US es_AR es_CL es_ES es_MX fi_FI fil_PH fr_BE fr_CA fr_CH fr_FR it_CH it_IT ja_JP ms_MY nb_NO nl_BE nl_NL pl_PL pt_BR pt_PT sv_FI sv_SE tr_TR zh_HK zh_TW'.split(
    ' ',
  ),
);
const SORTS = ['best_match', 'rating', 'review_count', 'distance'] as const;

type Query = Record<string, unknown>;


function invalid(field: string, description: string, instance?: unknown): never {
  throw apiError('VALIDATION_ERROR', description, { field, instance: instance ?? null });
}

function number(query: Query, field: string, min: number, max: number, integer: boolean): number | undefined {
  const raw = single(query[field]);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    invalid(field, `The supplied ${field}: ${raw} is invalid.`, raw);
  }
  return n;
}

interface Scored {
  entry: IndexedBusiness;
  /** Metres from the search centre; NaN until something needs it (see `distanceOf`). */
  distance: number;
  center: { latitude: number; longitude: number };
  relevance: number;
  /** rating weighted by how many reviews back it (best_match). */
  quality: number;
  openings?: string[];
}

/** Business search (facts.md §2) with the reservation extension (spec "Reservation search"). */
export class SearchService {
  constructor(
    private readonly clock: Clock,
    private readonly catalog: Catalog,
    private readonly occupancy: OccupancyIndex,
  ) {}

  private readonly windows = new Map<string, WindowAnswers>();

  async search(query: Query) {
    const location = single(query.location);
    const latitude = number(query, 'latitude', -90, 90, false);
    const longitude = number(query, 'longitude', -180, 180, false);
    const radius = number(query, 'radius', 0, MAX_RADIUS_M, true);
    const limit = number(query, 'limit', 0, 50, true) ?? 20;
    const offset = number(query, 'offset', 0, Number.MAX_SAFE_INTEGER, true) ?? 0;
    if (offset + limit > RESULT_CAP) invalid('offset', `Too many results requested: limit + offset must be at most ${RESULT_CAP}.`, offset + limit);
    const sortBy = single(query.sort_by) ?? 'best_match';
    if (!(SORTS as readonly string[]).includes(sortBy)) invalid('sort_by', `sort_by must be one of ${SORTS.join(', ')}`, sortBy);
    const locale = single(query.locale);
    if (locale !== undefined && !LOCALES.has(locale)) invalid('locale', `Unsupported locale: ${locale}`, locale);
    const term = single(query.term)?.trim().toLowerCase() ?? '';
    const categories = list(query.categories);
    const prices = list(query.price).map((p) => {
      if (!/^[1-4]$/.test(p)) invalid('price', `price must be a comma-separated list of 1 to 4, got ${p}`, p);
      return Number(p);
    });
    const attributes = [...list(query.attributes), ...list(query.attribute)];
    const openNow = parseBoolean(single(query.open_now), 'open_now', false);
    const openAt = number(query, 'open_at', 0, 4102444800, true);
    if (openNow && openAt !== undefined) invalid('open_at', 'open_now and open_at cannot be used together');
    if (location !== undefined && (location.length < 1 || location.length > 250)) invalid('location', 'location must be 1 to 250 characters', location);
    if (location === undefined && (latitude === undefined || longitude === undefined)) {
      invalid('location', 'Please specify a location or a latitude and longitude');
    }
    const reservation = this.reservationParams(query);

    const { entries, areas, byIdOrAlias, searchableByArea } = await this.catalog.current();
    let center: { latitude: number; longitude: number };
    let areaKey: string | undefined;
    if (latitude !== undefined && longitude !== undefined) {
      center = { latitude, longitude };
    } else {
      const area = resolveArea(areas, location!);
      if (!area) throw apiError('LOCATION_NOT_FOUND');
      center = area.center;
      areaKey = area.key;
    }
    const maxDistance = radius ?? (latitude !== undefined ? DEFAULT_RADIUS_M : Infinity);
    const openInstant = openNow ? this.clock.now() : openAt !== undefined ? openAt * 1000 : undefined;

    if (reservation) await this.occupancy.sync();
    const availability = reservation ? { ...reservation, now: this.clock.now(), days: new Map<string, DayContext>() } : undefined;
    // The total needs only whether each restaurant has an opening; the page gets the full list below.
    const answers = availability?.matchesPartySize ? this.windowAnswers(availability, entries, byIdOrAlias) : undefined;

    // Cheap tests first; the distance only for what passes them, and only when a radius or the
    // order needs it (it was a quarter of a metro search). Only the best offset + limit are kept
    // (as objects); the rest are counted.
    const best = new TopK<Scored>(offset + limit, comparators[sortBy]);
    let total = 0;
    const scratch: Scored = { entry: entries[0], distance: NaN, center, relevance: 0, quality: 0 };
    const pool = areaKey !== undefined ? (searchableByArea.get(areaKey) ?? []) : entries;
    for (const entry of pool) {
      if (!entry.searchable) continue;
      const b = entry.business;
      let relevance = 0;
      if (term) {
        if (entry.nameLower.includes(term)) relevance = 2;
        else if (entry.text.includes(term)) relevance = 1;
        else continue;
      }
      if (categories.length > 0 && !categories.some((c) => entry.categories.has(c))) continue;
      if (prices.length > 0 && !prices.includes(entry.priceLevel)) continue;
      if (attributes.length > 0 && !attributes.every((a) => (a === 'reservation' ? !!entry.reservation?.settings.accepts_reservations : !!b.attributes[a]))) continue;
      if (openInstant !== undefined && !isOpenAt(b, openInstant)) continue;
      let distance = NaN;
      if (maxDistance !== Infinity) {
        distance = distanceMeters(center, { latitude: entry.latitude!, longitude: entry.longitude! });
        if (distance > maxDistance) continue;
      }
      if (answers) {
        let has = answers.has[entry.ordinal];
        if (has < 0) answers.has[entry.ordinal] = has = this.hasOpening(entry, availability!, answers);
        if (has !== 1) continue;
      }
      total++;
      scratch.entry = entry;
      scratch.distance = distance;
      scratch.relevance = relevance;
      scratch.quality = entry.quality;
      if (best.accepts(scratch)) best.insert({ ...scratch });
    }

    const page = best.items.slice(offset);
    if (availability) for (const c of page) c.openings = this.openingsFor(c, availability);
    return {
      businesses: page.map((c) => present(c, this.clock.now())),
      total,
      region: { center },
    };
  }

  private reservationParams(query: Query) {
    const names = ['reservation_date', 'reservation_time', 'reservation_covers'];
    const given = names.filter((n) => single(query[n]) !== undefined);
    if (given.length === 0) return undefined;
    const parsed = parseDateTimeCovers(query, { date: 'reservation_date', time: 'reservation_time', covers: 'reservation_covers' }, 'VALIDATION_ERROR');
    return { ...parsed, matchesPartySize: parseBoolean(single(query.matches_party_size_param), 'matches_party_size_param', true) };
  }

  /**
   * Remembered answers to "has an opening" for one search window (date, time, party size), so a
   * metro of restaurants is not re-examined on every search: kept while the catalogue snapshot
   * stands and until the first instant an answer could change with time (a hold lapsing, a slot
   * passing the notice period, a date entering the booking horizon); restaurants whose bookings
   * changed since are examined again.
   */
  private windowAnswers(a: Availability, entries: IndexedBusiness[], byIdOrAlias: Map<string, IndexedBusiness>): WindowAnswers {
    const key = `${a.date}|${a.minutes}|${a.covers}`;
    const now = a.now;
    let w = this.windows.get(key);
    if (w && w.entries === entries && w.computedAt <= now && now < w.validUntil) {
      if (w.seq !== this.occupancy.seq) {
        const changed = this.occupancy.changedSince(w.seq);
        if (changed === undefined) w = undefined;
        else for (const id of changed) {
          const entry = byIdOrAlias.get(id);
          if (entry) w.has[entry.ordinal] = -1;
        }
        if (w) w.seq = this.occupancy.seq;
      }
    } else w = undefined;
    if (!w) {
      w = { entries, seq: this.occupancy.seq, computedAt: now, validUntil: Infinity, has: new Int8Array(entries.length).fill(-1) };
      if (this.windows.size >= MAX_REMEMBERED_WINDOWS) this.windows.clear();
      this.windows.set(key, w);
    }
    return w;
  }

  /** 1 when the restaurant has an opening in the window now, else 0; narrows `w.validUntil`. */
  private hasOpening(entry: IndexedBusiness, a: Availability, w: WindowAnswers): 0 | 1 {
    const res = entry.reservation;
    if (!res) return 0;
    const day = this.dayFor(entry, a);
    const slots = this.occupancy.day(res, day, a.covers);
    const first = bookableMinutes(day, slots, res.settings, a.minutes - SEARCH_OPENINGS_WINDOW, a.minutes + SEARCH_OPENINGS_WINDOW, 1)[0];
    // When could this answer change with time alone?
    let until = slots.validUntil;
    if (first !== undefined) until = Math.min(until, day.toUtc(first) - res.settings.min_notice_minutes * 60_000);
    if (day.ahead > res.settings.max_future_days) until = Math.min(until, nextLocalMidnight(a.now, entry.business.timezone));
    if (until < w.validUntil) w.validUntil = until;
    return first !== undefined ? 1 : 0;
  }

  private dayFor(entry: IndexedBusiness, a: Availability): DayContext {
    const tz = entry.business.timezone;
    let day = a.days.get(tz);
    if (!day) {
      day = dayContext(a.now, tz, a.date);
      a.days.set(tz, day);
    }
    return day;
  }

  private openingsFor(c: Scored, a: Availability): string[] {
    const res = c.entry.reservation;
    if (!res) return [];
    const day = this.dayFor(c.entry, a);
    const w = SEARCH_OPENINGS_WINDOW;
    const slots = this.occupancy.day(res, day, a.covers);
    return bookableMinutes(day, slots, res.settings, a.minutes - w, a.minutes + w).map(formatHHMM);
  }
}

interface Availability {
  now: number;
  date: string;
  minutes: number;
  covers: number;
  /** One day context per time zone, shared by the restaurants of the request. */
  days: Map<string, DayContext>;
}

interface WindowAnswers {
  entries: IndexedBusiness[];
  /** The occupancy index's change counter the answers reflect. */
  seq: number;
  computedAt: number;
  validUntil: number;
  /** By catalogue ordinal: 1 has an opening, 0 has none, -1 not examined yet. */
  has: Int8Array;
}

/** Windows remembered at once (each a byte per business). */
const MAX_REMEMBERED_WINDOWS = 256;

function nextLocalMidnight(now: number, timeZone: string): number {
  return localDay(addDays(localDate(now, timeZone), 1), timeZone)(0);
}

const byId = (a: Scored, b: Scored) => (a.entry.business.id < b.entry.business.id ? -1 : 1);
const comparators: Record<string, (a: Scored, b: Scored) => number> = {
  best_match: (a, b) => b.relevance - a.relevance || b.quality - a.quality || distanceOf(a) - distanceOf(b) || byId(a, b),
  rating: (a, b) => b.entry.business.rating - a.entry.business.rating || b.entry.business.review_count - a.entry.business.review_count || byId(a, b),
  review_count: (a, b) => b.entry.business.review_count - a.entry.business.review_count || byId(a, b),
  distance: (a, b) => distanceOf(a) - distanceOf(b) || byId(a, b),
};

function distanceOf(s: Scored): number {
  if (Number.isNaN(s.distance)) s.distance = distanceMeters(s.center, { latitude: s.entry.latitude!, longitude: s.entry.longitude! });
  return s.distance;
}

/**
 * The first k items in `compare` order without sorting them all: a page never reaches past
 * the result cap (240), while a metro can hold thousands of matches. `accepts` first, so the
 * caller copies only items that get in.
 */
export class TopK<T> {
  readonly items: T[] = [];

  constructor(
    private readonly k: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  accepts(item: T): boolean {
    return this.k > 0 && (this.items.length < this.k || this.compare(item, this.items[this.k - 1]) < 0);
  }

  insert(item: T): void {
    const out = this.items;
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(item, out[mid]) < 0) hi = mid;
      else lo = mid + 1;
    }
    out.splice(lo, 0, item);
    if (out.length > this.k) out.pop();
  }
}

export function topK<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  const best = new TopK(k, compare);
  for (const item of items) if (best.accepts(item)) best.insert(item);
  return best.items;
}

function present(c: Scored, now: number) {
  const b = c.entry.business;
  return {
    id: b.id,
    alias: b.alias,
    name: b.name,
    image_url: b.image_url,
    is_closed: b.is_closed,
    url: b.url,
    review_count: b.review_count,
    categories: b.categories,
    rating: b.rating,
    coordinates: b.coordinates,
    transactions: b.transactions,
    ...(b.price ? { price: b.price } : {}),
    location: b.location,
    phone: b.phone,
    display_phone: b.display_phone,
    distance: Math.round(distanceOf(c) * 10) / 10,
    attributes: b.attributes,
    business_hours: b.hours.map((hours) => ({ ...hours, is_open_now: isOpenAt(b, now) })),
    ...(c.openings ? { data: { reservation_openings: c.openings } } : {}),
  };
}

