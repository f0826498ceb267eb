import { queryWords, type QueryWord } from '../catalog/text.js';
import { apiError } from '../platform/errors.js';
import { isOneOf, list, single } from '../platform/query.js';
import { parseBoolean, parseDateTimeCovers } from '../reservations/params.js';

/** Results reachable through limit/offset (docs/contract: 240, as the original's current docs say). */
export const RESULT_CAP = 240;
export const MAX_RADIUS_M = 40_000;
/** The longest `term` read (longer ones are cut): nobody types more, and every word costs a lookup. */
const MAX_TERM_LENGTH = 200;
const LOCALES = new Set(
  'cs_CZ da_DK de_AT de_CH de_DE en_AU en_BE en_CA en_CH en_GB en_HK en_IE en_MY en_NZ en_PH en_SG en_US es_AR es_CL es_ES es_MX fi_FI fil_PH fr_BE fr_CA fr_CH fr_FR it_CH it_IT ja_JP ms_MY nb_NO nl_BE nl_NL pl_PL pt_BR pt_PT sv_FI sv_SE tr_TR zh_HK zh_TW'.split(
    ' ',
  ),
);
export const SORTS = ['best_match', 'rating', 'review_count', 'distance'] as const;
export type SortBy = (typeof SORTS)[number];

type Query = Record<string, unknown>;

export interface ReservationWindow {
  date: string;
  minutes: number;
  covers: number;
  /** true (the default): only restaurants with an opening for `covers` within ±30 minutes. */
  matchesPartySize: boolean;
}

/** A search request, checked (every bad value is a 400 naming its field). */
export interface SearchParams {
  location: string | undefined;
  latitude: number | undefined;
  longitude: number | undefined;
  radius: number | undefined;
  limit: number;
  offset: number;
  sortBy: SortBy;
  /** The term's words that count (catalog/text.ts). */
  words: QueryWord[];
  /** The whole term, folded (a business whose whole name it is ranks first). */
  term: string;
  categories: string[];
  prices: number[];
  attributes: string[];
  openNow: boolean;
  openAt: number | undefined;
  reservation: ReservationWindow | undefined;
}

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

/** Reads the public search parameters and the reservation extension (docs/contract/search.md §2.1; spec "Reservation search"). */
export function parseSearchParams(query: Query): SearchParams {
  const location = single(query.location);
  const latitude = number(query, 'latitude', -90, 90, false);
  const longitude = number(query, 'longitude', -180, 180, false);
  const radius = number(query, 'radius', 0, MAX_RADIUS_M, true);
  const limit = number(query, 'limit', 0, 50, true) ?? 20;
  const offset = number(query, 'offset', 0, Number.MAX_SAFE_INTEGER, true) ?? 0;
  if (offset + limit > RESULT_CAP)
    invalid('offset', `Too many results requested: limit + offset must be at most ${RESULT_CAP}.`, offset + limit);
  const sortBy = single(query.sort_by) ?? 'best_match';
  if (!isOneOf(SORTS, sortBy)) invalid('sort_by', `sort_by must be one of ${SORTS.join(', ')}`, sortBy);
  const locale = single(query.locale);
  if (locale !== undefined && !LOCALES.has(locale)) invalid('locale', `Unsupported locale: ${locale}`, locale);
  const term = (single(query.term) ?? '').slice(0, MAX_TERM_LENGTH);
  const categories = list(query.categories);
  const prices = list(query.price).map((p) => {
    if (!/^[1-4]$/.test(p)) invalid('price', `price must be a comma-separated list of 1 to 4, got ${p}`, p);
    return Number(p);
  });
  const attributes = [...list(query.attributes), ...list(query.attribute)];
  const openNow = parseBoolean(single(query.open_now), 'open_now', false);
  const openAt = number(query, 'open_at', 0, 4102444800, true);
  if (openNow && openAt !== undefined) invalid('open_at', 'open_now and open_at cannot be used together');
  if (location !== undefined && (location.length < 1 || location.length > 250))
    invalid('location', 'location must be 1 to 250 characters', location);
  if (location === undefined && (latitude === undefined || longitude === undefined))
    invalid('location', 'Please specify a location or a latitude and longitude');
  return {
    location,
    latitude,
    longitude,
    radius,
    limit,
    offset,
    sortBy,
    words: queryWords(term),
    term: term.trim(),
    categories,
    prices,
    attributes,
    openNow,
    openAt,
    reservation: reservationWindow(query),
  };
}

function reservationWindow(query: Query): ReservationWindow | undefined {
  const given = ['reservation_date', 'reservation_time', 'reservation_covers'].filter((n) => single(query[n]) !== undefined);
  if (given.length === 0) return undefined;
  const parsed = parseDateTimeCovers(
    query,
    { date: 'reservation_date', time: 'reservation_time', covers: 'reservation_covers' },
    'VALIDATION_ERROR',
  );
  return {
    date: parsed.date,
    minutes: parsed.minutes,
    covers: parsed.covers,
    matchesPartySize: parseBoolean(single(query.matches_party_size_param), 'matches_party_size_param', true),
  };
}
