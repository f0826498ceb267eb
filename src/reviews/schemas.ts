import { SUPPORTED_LOCALES } from './locales.js';
import { REVIEW_PAGE } from './review-service.js';

/** The JSON schemas of the reviews routes (routes.ts for the partner, admin-routes.ts for the operator). */
export const businessParams = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
export const reviewParams = {
  type: 'object',
  required: ['review_id'],
  properties: { review_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
export const partnerReview = {
  type: 'object',
  required: ['id', 'rating', 'text', 'time_created', 'url', 'user', 'public_response'],
  properties: {
    id: { type: 'string' },
    rating: { type: 'integer', minimum: 1, maximum: 5 },
    text: { type: 'string' },
    time_created: { type: 'string', description: '`YYYY-MM-DD HH:MM:SS`, Pacific time' },
    url: { type: 'string' },
    user: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string', description: 'First name and last initial' },
        image_url: { type: 'string' },
      },
    },
    public_response: {
      type: ['object', 'null'],
      properties: {
        text: { type: 'string' },
        time_created: { type: 'string', description: 'ISO 8601 with the Pacific offset' },
        business_user: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            role: { type: 'string', enum: ['OWNER', 'MANAGER', 'CUSTOMER_SERVICE', 'EMPLOYEE'] },
            photo_url: { type: 'string' },
          },
        },
      },
    },
  },
} as const;
export const reviewList = { type: 'array', items: partnerReview } as const;
export const pageQuery = {
  type: 'object',
  properties: {
    locale: { type: 'string', enum: [...SUPPORTED_LOCALES], description: 'Wins over Accept-Language; default en_US' },
    limit: { type: 'integer', minimum: REVIEW_PAGE.minLimit, maximum: REVIEW_PAGE.maxLimit, default: REVIEW_PAGE.defaultLimit },
    offset: { type: 'integer', minimum: 0, default: 0 },
    nested: {
      type: 'boolean',
      description: 'true: the list as {"reviews": {"review": […]}} (the published sample); default from PBS_REVIEWS_NESTED (false)',
    },
    business_ids: { type: 'string', description: 'Listed by the original interface; the path names the business, so it is ignored' },
  },
} as const;
/** A review as the operator's routes answer it: every text by locale, the author, the owner's public response. */
export const operatorReview = {
  type: 'object',
  required: ['id', 'business_id', 'rating', 'locale', 'text', 'user', 'time_created', 'public_response', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    business_id: { type: 'string' },
    rating: { type: 'integer' },
    locale: { type: 'string' },
    text: { type: 'object', additionalProperties: { type: 'string' }, description: 'Each text by its locale' },
    user: {
      type: 'object',
      required: ['id', 'name', 'image_url'],
      properties: { id: { type: ['string', 'null'] }, name: { type: 'string' }, image_url: { type: ['string', 'null'] } },
    },
    time_created: { type: 'string' },
    public_response: {
      type: ['object', 'null'],
      required: ['text', 'time_created', 'business_user'],
      properties: {
        text: { type: 'string' },
        time_created: { type: 'string' },
        business_user: {
          type: 'object',
          required: ['name', 'role', 'photo_url'],
          properties: { name: { type: 'string' }, role: { type: 'string' }, photo_url: { type: 'string' } },
        },
      },
    },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;
export const error = { $ref: 'ErrorResponse#' } as const;
