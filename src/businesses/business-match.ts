import { foldText } from '../platform/text.js';
import { apiError } from '../platform/errors.js';
import { isOneOf, single } from '../platform/query.js';

/**
 * Business Match (docs/contract/search.md §2.3; docs/business-match.md): which businesses of the catalogue a
 * partner's record of a business is. The rules are here, pure; the store finds candidates in the
 * city and the service puts the two together.
 */

export const MATCH_THRESHOLDS = ['none', 'default', 'strict'] as const;
export type MatchThreshold = (typeof MATCH_THRESHOLDS)[number];

export interface MatchQuery {
  name: string;
  address1: string;
  address2: string | undefined;
  address3: string | undefined;
  city: string;
  state: string;
  country: string;
  postalCode: string | undefined;
  latitude: number | undefined;
  longitude: number | undefined;
  phone: string | undefined;
  businessId: string | undefined;
  limit: number;
  threshold: MatchThreshold;
}

/** A business of the city, as far as matching needs it (`address1` once its record is read). */
export interface MatchCandidate {
  id: string;
  name: string;
  zip: string;
  latitude: number | null;
  longitude: number | null;
  phone: string;
  address1?: string | null;
}

function invalid(field: string, description: string): never {
  throw apiError('VALIDATION_ERROR', description, { field, instance: null });
}

function text(
  query: Record<string, unknown>,
  field: string,
  { required = false, min = 0, max }: { required?: boolean; min?: number; max: number },
): string | undefined {
  const value = single(query[field]);
  if (value === undefined) {
    if (required) invalid(field, `${field} is required`);
    return undefined;
  }
  if (value.length < min || value.length > max)
    invalid(field, min > 0 ? `${field} must be ${min} to ${max} characters` : `${field} must be at most ${max} characters`);
  return value;
}

function coordinate(query: Record<string, unknown>, field: string, limit: number): number | undefined {
  const raw = single(query[field]);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < -limit || n > limit) invalid(field, `${field} must be a number from -${limit} to ${limit}`);
  return n;
}

/** Reads the parameters with the limits of docs/contract/search.md §2.3; a bad one is 400 VALIDATION_ERROR naming it. */
export function parseMatchQuery(query: Record<string, unknown>): MatchQuery {
  const name = text(query, 'name', { required: true, min: 1, max: 64 })!;
  const address1 = text(query, 'address1', { required: true, max: 64 })!;
  const city = text(query, 'city', { required: true, min: 1, max: 64 })!;
  const state = text(query, 'state', { required: true, min: 1, max: 3 })!;
  const country = text(query, 'country', { required: true, min: 2, max: 2 })!;
  if (!/^[A-Z]{2}$/.test(country)) invalid('country', 'country must be an ISO 3166-1 alpha-2 code in capitals, e.g. US');
  const businessId = text(query, 'yelp_business_id', { max: 22 });
  if (businessId !== undefined && !/^[A-Za-z0-9_-]{22}$/.test(businessId))
    invalid('yelp_business_id', 'yelp_business_id must be a 22-character business id');
  const rawLimit = single(query.limit);
  const limit = rawLimit === undefined || rawLimit === '' ? 3 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10) invalid('limit', `The supplied limit: ${rawLimit} is invalid (1 to 10).`);
  const threshold = single(query.match_threshold) ?? 'default';
  if (!isOneOf(MATCH_THRESHOLDS, threshold)) invalid('match_threshold', 'match_threshold must be none, default or strict');
  const latitude = coordinate(query, 'latitude', 90);
  const longitude = coordinate(query, 'longitude', 180);
  if ((latitude === undefined) !== (longitude === undefined))
    invalid(latitude === undefined ? 'latitude' : 'longitude', 'latitude and longitude go together');
  return {
    name,
    address1,
    address2: text(query, 'address2', { max: 64 }),
    address3: text(query, 'address3', { max: 64 }),
    city,
    state,
    country,
    postalCode: text(query, 'postal_code', { max: 12 }),
    latitude,
    longitude,
    phone: text(query, 'phone', { min: 1, max: 32 }),
    businessId,
    limit,
    threshold,
  };
}

/** Character pairs of a folded name, spaces removed. */
function bigrams(folded: string): Map<string, number> {
  const s = folded.replace(/ /g, '');
  const out = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const pair = s.slice(i, i + 2);
    out.set(pair, (out.get(pair) ?? 0) + 1);
  }
  return out;
}

/** Words that do not tell two businesses apart (an article, "&"). */
const NOISE = new Set(['the', 'and', 'of', 'a']);
const nameWords = (folded: string) => folded.split(' ').filter((w) => w !== '' && !NOISE.has(w));

/**
 * How alike two names are, 0 to 1: 1 when equal once folded (case, accents, punctuation); 0.9
 * when every word of the shorter is in the longer ("Golden Trattoria" and "The Golden Trattoria
 * SF"); otherwise the Dice coefficient of their character pairs (typos, spacing).
 */
export function nameSimilarity(a: string, b: string): number {
  const fa = foldText(a);
  const fb = foldText(b);
  if (fa === fb) return 1;
  const wa = nameWords(fa);
  const wb = nameWords(fb);
  if (wa.length > 0 && wb.length > 0) {
    const [short, long] = wa.length <= wb.length ? [wa, new Set(wb)] : [wb, new Set(wa)];
    if (short.every((w) => long.has(w))) return 0.9;
  }
  const ba = bigrams(fa);
  const bb = bigrams(fb);
  let shared = 0;
  let total = 0;
  for (const [pair, n] of ba) {
    shared += Math.min(n, bb.get(pair) ?? 0);
    total += n;
  }
  for (const n of bb.values()) total += n;
  return total === 0 ? 0 : (2 * shared) / total;
}

const STREET_WORDS: Record<string, string> = {
  street: 'st',
  avenue: 'ave',
  av: 'ave',
  boulevard: 'blvd',
  road: 'rd',
  drive: 'dr',
  lane: 'ln',
  place: 'pl',
  court: 'ct',
  square: 'sq',
  highway: 'hwy',
  parkway: 'pkwy',
  suite: 'ste',
  north: 'n',
  south: 's',
  east: 'e',
  west: 'w',
};
const streetWords = (address: string) =>
  foldText(address)
    .split(' ')
    .filter(Boolean)
    .map((w) => STREET_WORDS[w] ?? w);

/**
 * How an address line compares: `exact` when equal once folded and abbreviated ("1 Market
 * Street" = "1 market st"), `number` when the house numbers agree and a street word is shared.
 */
export function addressMatch(a: string, b: string | null | undefined): 'exact' | 'number' | 'none' {
  if (!a || !b) return 'none';
  const wa = streetWords(a);
  const wb = streetWords(b);
  if (wa.length === 0 || wb.length === 0) return 'none';
  if (wa.join(' ') === wb.join(' ')) return 'exact';
  const number = /^[0-9]+[a-z]?$/;
  if (number.test(wa[0]) && wa[0] === wb[0] && wa.slice(1).some((w) => wb.slice(1).includes(w))) return 'number';
  return 'none';
}

/** The last ten digits of a phone number (enough to compare +1 415 555 0100 with (415) 555-0100). */
export const phoneDigits = (phone: string | undefined | null) => (phone ?? '').replace(/[^0-9]/g, '').slice(-10);

const samePostalCode = (a: string, b: string) => a.replace(/\s+/g, '').toUpperCase() === b.replace(/\s+/g, '').toUpperCase();

function metres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

export interface Judgement {
  score: number;
  accepted: boolean;
}

/** What the evidence says of one candidate; `address1` unknown (not read yet) counts as no match. */
export function judge(query: MatchQuery, candidate: MatchCandidate): Judgement {
  const name = nameSimilarity(query.name, candidate.name);
  const address = addressMatch(query.address1, candidate.address1);
  const phone = phoneDigits(query.phone).length >= 7 && phoneDigits(query.phone) === phoneDigits(candidate.phone);
  const postalKnown = !!query.postalCode && !!candidate.zip;
  const postal = postalKnown && samePostalCode(query.postalCode!, candidate.zip);
  const distance =
    query.latitude !== undefined && candidate.latitude !== null && candidate.longitude !== null
      ? metres(query.latitude, query.longitude!, candidate.latitude, candidate.longitude)
      : undefined;
  const hinted = query.businessId === candidate.id;
  const score =
    0.5 * name +
    (address === 'exact' ? 0.3 : address === 'number' ? 0.15 : 0) +
    (phone ? 0.3 : 0) +
    (postal ? 0.05 : 0) +
    (distance === undefined ? 0 : distance <= 100 ? 0.1 : distance <= 500 ? 0.05 : 0) +
    (hinted ? 0.5 : 0);
  let accepted: boolean;
  switch (query.threshold) {
    case 'strict':
      accepted = name >= 0.9 && (address === 'exact' || phone) && !(postalKnown && !postal);
      break;
    case 'default':
      accepted =
        ((hinted || phone) && name >= 0.5) ||
        (name >= 0.8 && (address !== 'none' || postal || (distance !== undefined && distance <= 250) || query.address1.trim() === '')) ||
        (name >= 0.6 && address === 'exact');
      break;
    default:
      accepted = name >= 0.3 || phone || hinted;
  }
  return { score, accepted };
}
