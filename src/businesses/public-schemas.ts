/**
 * JSON schemas of the public business record (docs/contract/search.md §2.2), for the routes that
 * answer with it and the OpenAPI document.
 */

export const locationSchema = {
  type: 'object',
  required: ['address1', 'address2', 'address3', 'city', 'zip_code', 'country', 'state', 'display_address', 'cross_streets'],
  properties: {
    address1: { type: 'string', description: '"" when the business has none' },
    address2: { type: 'string', description: '"" when the business has none' },
    address3: { type: 'string', description: '"" when the business has none' },
    city: { type: 'string' },
    zip_code: { type: 'string' },
    country: { type: 'string' },
    state: { type: 'string' },
    display_address: { type: 'array', items: { type: 'string' } },
    cross_streets: { type: ['string', 'null'] },
  },
} as const;

export const coordinatesSchema = {
  type: 'object',
  properties: { latitude: { type: ['number', 'null'] }, longitude: { type: ['number', 'null'] } },
} as const;

const hoursSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      hours_type: { type: 'string', enum: ['REGULAR'] },
      open: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            day: { type: 'integer', description: '0 = Monday … 6 = Sunday' },
            start: { type: 'string', description: 'HHMM' },
            end: { type: 'string', description: 'HHMM' },
            is_overnight: { type: 'boolean' },
          },
        },
      },
      is_open_now: { type: 'boolean' },
    },
  },
} as const;

/** The fields every public record has (search adds distance and data, details hours and photos). */
export const publicBusinessProperties = {
  id: { type: 'string' },
  alias: { type: 'string' },
  name: { type: 'string' },
  image_url: { type: 'string' },
  is_closed: { type: 'boolean' },
  url: { type: 'string' },
  review_count: { type: 'integer' },
  categories: { type: 'array', items: { type: 'object', properties: { alias: { type: 'string' }, title: { type: 'string' } } } },
  rating: { type: 'number' },
  coordinates: coordinatesSchema,
  transactions: { type: 'array', items: { type: 'string' } },
  price: { type: 'string' },
  location: locationSchema,
  phone: { type: 'string' },
  display_phone: { type: 'string' },
  attributes: { type: 'object', additionalProperties: true },
} as const;

export const searchBusinessSchema = {
  type: 'object',
  required: ['id', 'alias', 'name', 'location', 'coordinates', 'phone', 'display_phone'],
  properties: {
    ...publicBusinessProperties,
    distance: { type: 'number', description: 'metres from the search centre' },
    business_hours: hoursSchema,
    data: { type: 'object', properties: { reservation_openings: { type: 'array', items: { type: 'string' } } } },
  },
} as const;

export const businessDetailsSchema = {
  type: 'object',
  required: [
    'id',
    'alias',
    'name',
    'image_url',
    'is_claimed',
    'is_closed',
    'url',
    'phone',
    'display_phone',
    'review_count',
    'categories',
    'rating',
    'location',
    'coordinates',
    'photos',
    'hours',
    'transactions',
  ],
  properties: {
    ...publicBusinessProperties,
    is_claimed: { type: 'boolean', description: 'whether the owner has claimed the business' },
    hours: hoursSchema,
    photos: { type: 'array', items: { type: 'string' }, description: 'photo addresses (the business image where pbs has one)' },
  },
} as const;

export const businessMatchSchema = {
  type: 'object',
  required: ['businesses'],
  properties: {
    businesses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'alias', 'name', 'coordinates', 'location', 'phone', 'display_phone'],
        properties: {
          id: { type: 'string' },
          alias: { type: 'string' },
          name: { type: 'string' },
          coordinates: coordinatesSchema,
          location: locationSchema,
          phone: { type: 'string' },
          display_phone: { type: 'string' },
        },
      },
    },
  },
} as const;
