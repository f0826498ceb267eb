import { JOB_STATES, PROGRAM_STATES } from './advertising-tables.js';
import { programView, receipt } from './schemas.js';

/** The answers of the advertising family's operator routes (typed for the SDK and the console). */

export const error = { $ref: 'ErrorResponse#' } as const;

/** A job as the operator sees it: its partner, kind and hold, and the receipt the partner polls. */
export const operatorJobSchema = {
  type: 'object',
  required: ['job_id', 'partner_id', 'kind', 'held', ...receipt.required],
  properties: {
    job_id: { type: 'string' },
    partner_id: { type: 'string' },
    kind: { type: 'string', enum: ['create', 'edit', 'end'] },
    held: { type: 'boolean' },
    ...receipt.properties,
    status: { type: 'string', enum: JOB_STATES },
  },
} as const;

export const jobListSchema = {
  type: 'object',
  required: ['jobs'],
  properties: { jobs: { type: 'array', items: operatorJobSchema } },
} as const;

export const programListSchema = {
  type: 'object',
  required: ['programs'],
  properties: {
    programs: {
      type: 'array',
      items: {
        ...programView,
        required: ['program_id', 'program_type', 'partner_id', 'yelp_business_id', 'state'],
        properties: {
          ...programView.properties,
          partner_id: { type: 'string' },
          yelp_business_id: { type: 'string' },
          state: { type: 'string', enum: PROGRAM_STATES },
        },
      },
    },
  },
} as const;

export const settingsSchema = { type: 'object', required: ['hold_new_jobs'], properties: { hold_new_jobs: { type: 'boolean' } } } as const;

export const flagsSchema = {
  type: 'object',
  required: ['business_id', 'removed_from_search', 'restricted_from_advertising'],
  properties: {
    business_id: { type: 'string' },
    removed_from_search: { type: 'boolean' },
    restricted_from_advertising: { type: 'boolean' },
  },
} as const;

export const categoryPolicySchema = {
  type: 'object',
  required: ['declined'],
  properties: {
    declined: {
      type: 'array',
      items: { type: 'object', required: ['category', 'reason'], properties: { category: { type: 'string' }, reason: { type: 'string' } } },
    },
  },
} as const;

export const promotionSchema = {
  type: 'object',
  required: ['code', 'program_types', 'min_budget', 'max_budget', 'months', 'active'],
  properties: {
    code: { type: 'string' },
    program_types: { type: 'array', items: { type: 'string' } },
    min_budget: { type: ['integer', 'null'], description: 'cents' },
    max_budget: { type: ['integer', 'null'], description: 'cents' },
    months: { type: 'integer' },
    active: { type: 'boolean' },
  },
} as const;

export const promotionListSchema = {
  type: 'object',
  required: ['promotions'],
  properties: { promotions: { type: 'array', items: promotionSchema } },
} as const;

export const importedMetricsSchema = { type: 'object', required: ['imported'], properties: { imported: { type: 'integer' } } } as const;
