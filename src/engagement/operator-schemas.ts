import { ACTIVITY_FIELDS } from './scoring.js';

/** The answers of the engagement family's operator routes (typed for the SDK and the console). */

export const error = { $ref: 'ErrorResponse#' } as const;

export const importedActivitySchema = {
  type: 'object',
  required: ['imported', 'weeks'],
  properties: {
    imported: { type: 'integer' },
    weeks: { type: 'array', items: { type: 'string' }, description: 'The weeks touched (their Mondays)' },
  },
} as const;

export const weekListSchema = {
  type: 'object',
  required: ['weeks'],
  properties: {
    weeks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['week', 'scored', 'scored_at', 'businesses_scored', 'changed_at'],
        properties: {
          week: { type: 'string', description: 'Its Monday' },
          scored: { type: 'boolean', description: 'Scored since its data last changed' },
          scored_at: { type: ['string', 'null'] },
          businesses_scored: { type: 'integer' },
          changed_at: { type: 'string' },
        },
      },
    },
  },
} as const;

export const weekSummarySchema = {
  type: 'object',
  required: ['week', 'businesses_scored', 'scored'],
  properties: { week: { type: 'string' }, businesses_scored: { type: 'integer' }, scored: { type: 'boolean' } },
} as const;

const count = { type: 'integer' } as const;
export const businessEngagementSchema = {
  type: 'object',
  required: ['business_id', 'weeks'],
  properties: {
    business_id: { type: 'string' },
    weeks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['week', 'activity', 'scores'],
        properties: {
          week: { type: 'string' },
          activity: {
            type: 'object',
            required: [...ACTIVITY_FIELDS],
            properties: Object.fromEntries(ACTIVITY_FIELDS.map((f) => [f, count])),
          },
          scores: {
            type: ['object', 'null'],
            required: ['engagement_metric', 'intent_metric', 'transaction_metric'],
            properties: { engagement_metric: count, intent_metric: count, transaction_metric: count },
          },
        },
      },
    },
  },
} as const;
