import type { Catalog } from '../catalog/catalog.js';
import type { SearchParams } from './search-params.js';

/**
 * How search orders what it found (docs/search.md "Ranking"): the orders of `sort_by`, distances
 * worked out when first compared, and the first k in order without sorting them all.
 */

/** One business found, with what orders it. */
export interface Hit {
  ordinal: number;
  relevance: number;
  /** Metres from the search centre; NaN until something needs it. */
  distance: number;
}

export function distanceMeters(a: { latitude: number; longitude: number }, latitude: number, longitude: number): number {
  const rad = Math.PI / 180;
  const dLat = (latitude - a.latitude) * rad;
  const dLon = (longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

export type Compare = (a: Hit, b: Hit) => number;

/** The orders of `sort_by` (docs/search.md "Ranking"); distances are worked out when first compared. */
export const comparators: Record<SearchParams['sortBy'], (catalog: Catalog, center: { latitude: number; longitude: number }) => Compare> = {
  best_match: (catalog, center) => {
    const q = catalog.columns.quality;
    return (a, b) =>
      b.relevance - a.relevance ||
      q[b.ordinal] - q[a.ordinal] ||
      distanceOf(catalog, center, a) - distanceOf(catalog, center, b) ||
      byId(catalog, a, b);
  },
  rating: (catalog) => {
    const { rating, reviewCount } = catalog.columns;
    return (a, b) => rating[b.ordinal] - rating[a.ordinal] || reviewCount[b.ordinal] - reviewCount[a.ordinal] || byId(catalog, a, b);
  },
  review_count: (catalog) => {
    const { reviewCount } = catalog.columns;
    return (a, b) => reviewCount[b.ordinal] - reviewCount[a.ordinal] || byId(catalog, a, b);
  },
  distance: (catalog, center) => (a, b) => distanceOf(catalog, center, a) - distanceOf(catalog, center, b) || byId(catalog, a, b),
};

function byId(catalog: Catalog, a: Hit, b: Hit): number {
  return catalog.businesses[a.ordinal].id < catalog.businesses[b.ordinal].id ? -1 : 1;
}

function distanceOf(catalog: Catalog, center: { latitude: number; longitude: number }, hit: Hit): number {
  if (Number.isNaN(hit.distance))
    hit.distance = distanceMeters(center, catalog.columns.latitude[hit.ordinal], catalog.columns.longitude[hit.ordinal]);
  return hit.distance;
}

/**
 * The first k items in `compare` order without sorting them all: a page never reaches past
 * the result cap (240), while an area can hold many thousands of matches. `accepts` first, so the
 * caller inserts only items that get in.
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
