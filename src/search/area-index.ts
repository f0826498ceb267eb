import type { Area } from '../catalog/areas.js';
import { RESERVABLE, type Catalog } from '../catalog/catalog.js';
import { GENERIC_TOKEN, SCORE, WHOLE_NAME, type WordMatch } from '../catalog/term-index.js';
import { allSet, andInto, countBits, forEachBit, orInto, wordsFor } from '../platform/bitset.js';
import { dayContext, DAY_SLOTS } from '../reservations/availability.js';
import { SLOT_MINUTES } from '../reservations/inventory.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';
import { AreaColumn, type ColumnBudget } from './area-columns.js';

/** What the fast path answers: a named area, filters that are the same for every request, best-match order. */
export interface AreaQuery {
  categories: string[];
  prices: number[];
  /** Attributes that must all be set (`reservation`: takes reservations). */
  attributes: string[];
  /** Only businesses a generic word ("food", "dinner") matches. */
  generic: boolean;
  /** Only restaurants with an opening in this window now. */
  availability: { date: string; minutes: number; covers: number } | undefined;
  /**
   * One word of the term's own (not generic): whom it matches, by how well (term-index.ts), and
   * whether a business whose whole name it is ranks first (not when generic words come with it).
   */
  word: { text: string; match: WordMatch; wholeName: boolean } | undefined;
  now: number;
}

/** Members that rank alike: the same relevance, so best-match order among them is the area's order. */
export interface Tier {
  relevance: number;
  bits: Uint32Array;
}

const WINDOW_MINUTES = 30;

/**
 * The members of one area in best-match order (quality, then id) with bitsets over their
 * positions: the filters a search combines (reservable, a category, a price, a generic word, the
 * booking horizon, the notice period) and the availability columns above. A search of a whole
 * area with such filters is then a few operations per 32 members (docs/search.md "How search is
 * built"), and its page is the first set bits.
 */
export class AreaIndex {
  members = new Int32Array(0);
  private positions = new Map<number, number>();
  private words = 0;
  private builtVersion = -1;
  private catalogGeneration = -1;
  private readonly filters = new Map<string, Uint32Array>();
  private readonly wordFilters = new Map<string, Tier[]>();
  private notice: { minutes: number[]; cumulative: Uint32Array[] } | undefined;
  readonly columns = new Map<string, AreaColumn>();
  private scratch = new Uint32Array(0);
  private window = new Uint32Array(0);

  constructor(
    readonly area: Area,
    private readonly catalog: Catalog,
    private readonly occupancy: OccupancyIndex,
    private readonly budget: ColumnBudget,
  ) {}

  get size(): number {
    return this.members.length;
  }

  /** Brings the index up to the catalogue: rebuilt when members joined, left or moved, else the changed members' rows recomputed. */
  sync(): void {
    const changed = this.builtVersion === this.area.version ? this.catalog.changedSince(this.catalogGeneration) : undefined;
    if (changed === undefined) this.rebuild();
    else if (changed.length > 0) {
      let touched = false;
      for (const ordinal of changed) {
        const p = this.positions.get(ordinal);
        if (p === undefined) continue;
        touched = true;
        for (const column of this.columns.values()) column.markDirty(p);
      }
      if (touched) {
        this.filters.clear();
        this.wordFilters.clear();
        this.notice = undefined;
      }
    }
    this.catalogGeneration = this.catalog.generation;
  }

  private rebuild(): void {
    const q = this.catalog.columns.quality;
    const businesses = this.catalog.businesses;
    const members = Int32Array.from(this.area.members);
    // Best match without a term: quality, then id (distance only breaks ties: see `page`).
    members.sort((a, b) => q[b] - q[a] || (businesses[a].id < businesses[b].id ? -1 : 1));
    this.members = members;
    this.positions = new Map();
    for (let p = 0; p < members.length; p++) this.positions.set(members[p], p);
    this.words = wordsFor(members.length);
    this.scratch = new Uint32Array(this.words);
    this.window = new Uint32Array(this.words);
    this.filters.clear();
    this.wordFilters.clear();
    this.notice = undefined;
    for (const column of this.columns.values()) this.budget.drop(column);
    this.columns.clear();
    this.builtVersion = this.area.version;
  }

  /**
   * The members matching `query`, as tiers of equal relevance from the most relevant down (each
   * a bitset over positions), and how many match in all. Without a word of its own, one tier.
   */
  evaluate(query: AreaQuery): { tiers: Tier[]; total: number } {
    const matching = this.matching(query);
    if (!query.word) return { tiers: [{ relevance: 0, bits: matching }], total: countBits(matching, this.words) };
    const tiers: Tier[] = [];
    let total = 0;
    for (const tier of this.wordTiers(query.word)) {
      const bits = Uint32Array.from(tier.bits);
      andInto(bits, matching);
      const n = countBits(bits, this.words);
      if (n === 0) continue;
      tiers.push({ relevance: tier.relevance, bits });
      total += n;
    }
    return { tiers, total };
  }

  /**
   * The members a word matches, by its score for each, most relevant first; the businesses whose
   * whole name the word is (stopwords aside) first of all, as general search ranks them.
   */
  private wordTiers({ text, match, wholeName }: NonNullable<AreaQuery['word']>): Tier[] {
    const key = `${wholeName ? 'name' : 'word'}:${text}`;
    let tiers = this.wordFilters.get(key);
    if (!tiers) {
      const byRelevance = new Map<number, Uint32Array>();
      const businesses = this.catalog.businesses;
      for (let i = 0; i < match.ordinals.length; i++) {
        const p = this.positions.get(match.ordinals[i]);
        if (p === undefined) continue;
        let relevance = match.scores[i];
        if (wholeName && relevance === SCORE.NAME && businesses[match.ordinals[i]].nameKey === text) relevance += WHOLE_NAME;
        let bits = byRelevance.get(relevance);
        if (!bits) byRelevance.set(relevance, (bits = new Uint32Array(this.words)));
        bits[p >>> 5] |= 1 << (p & 31);
      }
      tiers = [...byRelevance].sort((a, b) => b[0] - a[0]).map(([relevance, bits]) => ({ relevance, bits }));
      this.wordFilters.set(key, tiers);
    }
    return tiers;
  }

  /** The members passing the query's filters and availability (valid until the next call). */
  private matching(query: AreaQuery): Uint32Array {
    const bits = this.scratch;
    bits.set(this.filter('all', () => true));
    if (query.generic)
      andInto(
        bits,
        this.filter('generic', (o) => this.catalog.businesses[o].terms.has(GENERIC_TOKEN)),
      );
    if (query.categories.length > 0) {
      const any = new Uint32Array(this.words);
      for (const alias of query.categories)
        orInto(
          any,
          this.filter(`category:${alias}`, (o) => this.catalog.businesses[o].categories.includes(alias)),
        );
      andInto(bits, any);
    }
    if (query.prices.length > 0) {
      const any = new Uint32Array(this.words);
      for (const level of query.prices)
        orInto(
          any,
          this.filter(`price:${level}`, (o) => this.catalog.columns.priceLevel[o] === level),
        );
      andInto(bits, any);
    }
    for (const name of query.attributes) {
      const test =
        name === 'reservation'
          ? (o: number) => (this.catalog.columns.flags[o] & RESERVABLE) !== 0
          : (o: number) => this.catalog.businesses[o].attributes.includes(name);
      andInto(bits, this.filter(`attribute:${name}`, test));
    }
    if (query.availability) andInto(bits, this.available(query.availability, query.now));
    return bits;
  }

  /**
   * The first `count` members of the tiers in order, plus any after them in the last tier as good
   * by quality (ties, which the caller orders by distance): with their tier's relevance.
   */
  page(tiers: Tier[], count: number): Array<{ position: number; relevance: number }> {
    const out: Array<{ position: number; relevance: number }> = [];
    if (count <= 0) return out;
    const q = this.catalog.columns.quality;
    for (const tier of tiers) {
      let last = NaN;
      forEachBit(tier.bits, this.words, (p) => {
        if (out.length >= count && q[this.members[p]] !== last) return false;
        out.push({ position: p, relevance: tier.relevance });
        last = q[this.members[p]];
        return true;
      });
      if (out.length >= count) break;
    }
    return out;
  }

  /**
   * A member's open slots on a date for a party size, as its column holds them (the column of
   * an availability just evaluated), or undefined when there is no such column.
   */
  openSlots(ordinal: number, date: string, covers: number): { open0: number; open1: number; open2: number } | undefined {
    const p = this.positions.get(ordinal);
    const column = this.columns.get(`${date}|${covers}`);
    return p === undefined || !column ? undefined : column.openSlots(p);
  }

  /** A bitset of the members that pass `test`, kept until a member changes. */
  private filter(key: string, test: (ordinal: number) => boolean): Uint32Array {
    let bits = this.filters.get(key);
    if (!bits) {
      bits = key === 'all' ? allSet(this.members.length) : new Uint32Array(this.words);
      if (key !== 'all') for (let p = 0; p < this.members.length; p++) if (test(this.members[p])) bits[p >>> 5] |= 1 << (p & 31);
      this.filters.set(key, bits);
    }
    return bits;
  }

  /**
   * Members with a slot open within ±30 minutes of the time that a guest may book now: inside
   * their booking horizon and past their notice period (the rules `bookableRange` applies).
   */
  private available(window: { date: string; minutes: number; covers: number }, now: number): Uint32Array {
    const out = this.window;
    out.fill(0);
    const timezone = this.catalog.areas.timezoneOf(this.area);
    if (timezone === undefined) throw new Error('an area of several time zones has no fast path');
    const day = dayContext(now, timezone, window.date);
    if (day.ahead < 0) return out;
    const slots = this.column(window.date, window.covers, now).slots;
    const notice = this.noticeGroups();
    const first = Math.max(0, Math.ceil((window.minutes - WINDOW_MINUTES) / SLOT_MINUTES));
    const end = Math.min(DAY_SLOTS, Math.floor((window.minutes + WINDOW_MINUTES) / SLOT_MINUTES) + 1);
    const words = this.words;
    for (let q = first; q < end; q++) {
      const lead = day.toUtc(q * SLOT_MINUTES) - now;
      if (lead <= 0) continue;
      // The notice groups whose notice this slot's lead covers (minutes ascending).
      let k = notice.minutes.length - 1;
      while (k >= 0 && notice.minutes[k] * 60_000 > lead) k--;
      if (k < 0) continue;
      const base = q * words;
      if (k === notice.minutes.length - 1) {
        for (let w = 0; w < words; w++) out[w] |= slots[base + w];
      } else {
        const allowed = notice.cumulative[k];
        for (let w = 0; w < words; w++) out[w] |= slots[base + w] & allowed[w];
      }
    }
    andInto(
      out,
      this.filter(`horizon:${day.ahead}`, (o) => this.catalog.columns.maxFutureDays[o] >= day.ahead),
    );
    return out;
  }

  /** Members grouped by notice period: `cumulative[k]` holds those whose notice is at most `minutes[k]`. */
  private noticeGroups() {
    if (!this.notice) {
      const notice = this.catalog.columns.noticeMinutes;
      const minutes = [...new Set(Array.from(this.members, (o) => notice[o]))].sort((a, b) => a - b);
      const cumulative = minutes.map((limit) => {
        const bits = new Uint32Array(this.words);
        for (let p = 0; p < this.members.length; p++) if (notice[this.members[p]] <= limit) bits[p >>> 5] |= 1 << (p & 31);
        return bits;
      });
      this.notice = { minutes, cumulative };
    }
    return this.notice;
  }

  /** The column of one date and party size, brought up to date at `now`. */
  private column(date: string, covers: number, now: number): AreaColumn {
    const key = `${date}|${covers}`;
    let column = this.columns.get(key);
    if (!column) {
      column = new AreaColumn(date, covers, this.members, this.positions, this.catalog, this.occupancy, () => this.columns.delete(key));
      this.columns.set(key, column);
      this.budget.add(column, this.members.length);
      column.fill(now);
    } else {
      this.budget.touch(column);
      column.refresh(now);
    }
    return column;
  }
}
