import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { containsNul } from '../platform/input-guards.js';
import { schemaValidator } from '../platform/validation.js';

export interface Category {
  alias: string;
  title: string;
}

export interface OpenInterval {
  /** 0 = Monday … 6 = Sunday (docs/contract/search.md §2.2). */
  day: number;
  /** `HHMM` local time. */
  start: string;
  end: string;
  is_overnight: boolean;
}

export interface BusinessHours {
  hours_type: 'REGULAR';
  open: OpenInterval[];
}

/** Address lines are strings, `""` when absent: Yelp's published schema types them string (docs/contract/search.md §2.2). */
export interface BusinessLocation {
  address1: string;
  address2: string;
  address3: string;
  city: string;
  zip_code: string;
  country: string;
  state: string;
  display_address: string[];
  cross_streets: string | null;
}

/** A business as the operator loads it: every field of the public search record, plus timezone and hours. */
export interface Business {
  id: string;
  alias: string;
  name: string;
  image_url: string;
  is_closed: boolean;
  /** Whether the business's owner has claimed it (business details only; operator-set, default false). */
  is_claimed: boolean;
  url: string;
  review_count: number;
  categories: Category[];
  rating: number;
  coordinates: { latitude: number | null; longitude: number | null };
  transactions: string[];
  price?: string;
  location: BusinessLocation;
  phone: string;
  display_phone: string;
  attributes: Record<string, unknown>;
  timezone: string;
  hours: BusinessHours[];
  /** Free text of the business's specialties (advertising prerequisites). */
  specialties: string;
  /**
   * The business this one was moved or merged into, as the operator records it: the partner
   * support listings' `destination_yelp_business_id` (docs/contract/advertising.md §8.7).
   */
  migrated_to?: string;
}

const idPattern = '^[A-Za-z0-9_-]{1,64}$';
const hhmm = '^([01][0-9]|2[0-3])[0-5][0-9]$';

/** JSON schema of the operator's business input (also used in the OpenAPI document). */
export const businessInputSchema = {
  $id: 'BusinessInput',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'location', 'timezone'],
  properties: {
    id: { type: 'string', pattern: idPattern },
    alias: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^/?#\\s]+$' },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    image_url: { type: 'string', maxLength: 2000 },
    is_closed: { type: 'boolean' },
    is_claimed: { type: 'boolean' },
    url: { type: 'string', maxLength: 2000 },
    review_count: { type: 'integer', minimum: 0 },
    categories: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['alias', 'title'],
        properties: { alias: { type: 'string', minLength: 1, maxLength: 100 }, title: { type: 'string', minLength: 1, maxLength: 200 } },
      },
    },
    rating: { type: 'number', minimum: 0, maximum: 5, multipleOf: 0.5 },
    coordinates: {
      type: 'object',
      additionalProperties: false,
      required: ['latitude', 'longitude'],
      properties: {
        latitude: { type: ['number', 'null'], minimum: -90, maximum: 90 },
        longitude: { type: ['number', 'null'], minimum: -180, maximum: 180 },
      },
    },
    transactions: { type: 'array', maxItems: 10, items: { type: 'string', enum: ['pickup', 'delivery', 'restaurant_reservation'] } },
    price: { type: 'string', pattern: '^\\${1,4}$' },
    location: {
      type: 'object',
      additionalProperties: false,
      required: ['city', 'country', 'state'],
      properties: {
        address1: { type: ['string', 'null'], maxLength: 200 },
        address2: { type: ['string', 'null'], maxLength: 200 },
        address3: { type: ['string', 'null'], maxLength: 200 },
        city: { type: 'string', minLength: 1, maxLength: 100 },
        zip_code: { type: 'string', maxLength: 20 },
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
        state: { type: 'string', minLength: 1, maxLength: 3 },
        display_address: { type: 'array', items: { type: 'string' } },
        cross_streets: { type: ['string', 'null'] },
      },
    },
    phone: { type: 'string', pattern: '^(\\+[1-9][0-9]{6,14})?$' },
    display_phone: { type: 'string', maxLength: 40 },
    attributes: { type: 'object', additionalProperties: true },
    timezone: { type: 'string', minLength: 1, maxLength: 64 },
    hours: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['open'],
        properties: {
          hours_type: { type: 'string', enum: ['REGULAR'] },
          open: {
            type: 'array',
            maxItems: 50,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['day', 'start', 'end'],
              properties: {
                day: { type: 'integer', minimum: 0, maximum: 6 },
                start: { type: 'string', pattern: hhmm },
                end: { type: 'string', pattern: hhmm },
                is_overnight: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
    specialties: { type: 'string', maxLength: 5000 },
    migrated_to: { type: 'string', pattern: idPattern },
  },
} as const;

const validateInput = schemaValidator(businessInputSchema, 'business');

/** Zones already found valid: an import names the same few zones on every line, and checking one builds a formatter. */
const validZones = new Set<string>();

export function isValidTimezone(tz: string): boolean {
  if (validZones.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return false;
  }
  if (validZones.size < 1000) validZones.add(tz);
  return true;
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function formatDisplayPhone(phone: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(phone);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : phone;
}

/**
 * Validates operator input and fills what can be derived (id, alias, display fields).
 * Throws VALIDATION_ERROR naming the field; `where` prefixes the message (e.g. "line 3").
 */
export function normalizeBusinessInput(input: unknown, where?: string): Business {
  if (containsNul(input)) throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}text contains a NUL character`, { field: null });
  const b = validateInput(input, where);
  if (!isValidTimezone(b.timezone)) {
    throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}timezone "${b.timezone}" is not an IANA time zone`, {
      field: 'timezone',
    });
  }
  const id = b.id ?? newId();
  const alias = b.alias ?? slugify(`${b.name} ${b.location.city}`);
  const loc = b.location;
  const cityLine = `${loc.city}, ${loc.state}${loc.zip_code ? ` ${loc.zip_code}` : ''}`;
  const location: BusinessLocation = {
    address1: loc.address1 ?? '',
    address2: loc.address2 ?? '',
    address3: loc.address3 ?? '',
    city: loc.city,
    zip_code: loc.zip_code ?? '',
    country: loc.country,
    state: loc.state,
    display_address: loc.display_address ?? [loc.address1, loc.address2, loc.address3, cityLine].filter((x): x is string => !!x),
    cross_streets: loc.cross_streets ?? null,
  };
  const phone = b.phone ?? '';
  return {
    id,
    alias,
    name: b.name,
    image_url: b.image_url ?? '',
    is_closed: b.is_closed ?? false,
    is_claimed: b.is_claimed ?? false,
    url: b.url ?? '',
    review_count: b.review_count ?? 0,
    categories: b.categories ?? [],
    rating: b.rating ?? 0,
    coordinates: b.coordinates ?? { latitude: null, longitude: null },
    transactions: b.transactions ?? [],
    ...(b.price ? { price: b.price } : {}),
    location,
    phone,
    display_phone: b.display_phone ?? formatDisplayPhone(phone),
    attributes: b.attributes ?? {},
    timezone: b.timezone,
    hours: (b.hours ?? []).map((h) => ({
      hours_type: 'REGULAR' as const,
      open: h.open.map((o) => ({ day: o.day, start: o.start, end: o.end, is_overnight: o.is_overnight ?? o.end <= o.start })),
    })),
    specialties: b.specialties ?? '',
    ...(b.migrated_to ? { migrated_to: b.migrated_to } : {}),
  };
}

/** The fields of the public business record (docs/contract/search.md §2.2) that search, Business Match and details share. */
export function publicFields(b: Business) {
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
    attributes: b.attributes,
  };
}

/** Why search leaves a business out (docs/search.md): each reason it has. */
export type NotSearchableReason = 'closed' | 'no_reviews' | 'no_coordinates';

/**
 * The reasons search does not list this business, none when it does: only businesses that are
 * open, reviewed (as the original: docs/contract/search.md §2.1) and on the map are found.
 */
export function notSearchableBecause(b: Pick<Business, 'is_closed' | 'review_count' | 'coordinates'>): NotSearchableReason[] {
  const reasons: NotSearchableReason[] = [];
  if (b.is_closed) reasons.push('closed');
  if (b.review_count <= 0) reasons.push('no_reviews');
  if (b.coordinates.latitude === null || b.coordinates.longitude === null) reasons.push('no_coordinates');
  return reasons;
}

/** `notSearchableBecause(b)` is empty, without making the list (the catalogue asks it of every business it loads). */
export function isSearchable(b: Pick<Business, 'is_closed' | 'review_count' | 'coordinates'>): boolean {
  return !b.is_closed && b.review_count > 0 && b.coordinates.latitude !== null && b.coordinates.longitude !== null;
}
