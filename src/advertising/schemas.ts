import { MIN_BID, MIN_BUDGET } from './advertising-rules.js';
import { PROGRAM_TYPES } from './advertising-tables.js';

/** The advertising routes' JSON schemas (docs/contract/advertising.md §8): parameters, receipts, programs. */

export const jobId = { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string' } } } as const;
const entry = { type: 'object', additionalProperties: true, properties: { status: { type: 'string' }, requested_value: {} } } as const;
export const receipt = {
  type: 'object',
  required: ['status', 'created_at', 'completed_at', 'business_results'],
  properties: {
    status: { type: 'string', enum: ['PROCESSING', 'COMPLETED'] },
    created_at: { type: 'string' },
    completed_at: { type: ['string', 'null'] },
    business_results: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        required: ['status', 'identifier_type', 'identifier'],
        properties: {
          status: { type: 'string', enum: ['PROCESSING', 'COMPLETED', 'REJECTED'] },
          identifier_type: { type: 'string', enum: ['BUSINESS', 'PROGRAM'] },
          identifier: { type: 'string' },
          update_results: {
            type: 'object',
            properties: {
              program_added: { type: 'object', additionalProperties: entry },
              program_modified: { type: 'object', additionalProperties: entry },
              program_ended: entry,
            },
          },
          error: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string' } } },
        },
      },
    },
  },
} as const;
/** Typed for the document; the service checks the values (its codes: 400, or the receipt). */
export const createQueryDocs = {
  type: 'object',
  required: ['business_id', 'program_name'],
  properties: {
    business_id: { type: 'string', description: 'a business linked to the caller' },
    program_name: { type: 'string', enum: [...PROGRAM_TYPES] },
    promotion_code: { type: 'string' },
    start: { type: 'string', format: 'date', description: 'starts 00:00 Pacific; absent: now' },
    end: { type: 'string', format: 'date', description: 'ends 23:59 Pacific; absent: until ended' },
    budget: { type: 'integer', minimum: MIN_BUDGET, description: 'CPC: monthly budget in cents' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', default: 'USD' },
    is_autobid: { type: 'boolean', description: 'CPC: required' },
    max_bid: { type: 'integer', minimum: MIN_BID, description: 'cents; required when is_autobid is false' },
    pacing_method: { type: 'string', enum: ['paced', 'unpaced'] },
    fee_period: { type: 'string', enum: ['CALENDAR_MONTH', 'ROLLING_MONTH'], default: 'CALENDAR_MONTH' },
    ad_categories: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const editQueryDocs = {
  type: 'object',
  properties: {
    start: { type: 'string', format: 'date', description: 'only before the program has started, and not before today' },
    end: { type: 'string', format: 'date', description: 'not in the past; the program ends 23:59 Pacific of it' },
    budget: { type: 'integer', minimum: MIN_BUDGET, description: 'cents' },
    future_budget_date: { type: 'string', format: 'date', description: 'schedules the budget change' },
    max_bid: { type: 'integer', minimum: MIN_BID, description: 'cents; only for a program bidding with max_bid' },
    pacing_method: { type: 'string', enum: ['paced', 'unpaced'] },
    ad_categories: { type: 'array', items: { type: 'string' } },
  },
} as const;
export const programParams = {
  type: 'object',
  required: ['program_id'],
  properties: { program_id: { type: 'string', maxLength: 64 } },
} as const;

/** A program as the listings show it (docs/contract/advertising.md §8.7). */
export const programView = {
  type: 'object',
  additionalProperties: true,
  properties: {
    program_type: { type: 'string' },
    program_id: { type: 'string' },
    start_date: { type: 'string' },
    end_date: { type: ['string', 'null'] },
    program_status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
    program_pause_status: { type: 'string', enum: ['PAUSED', 'NOT_PAUSED'] },
    program_metrics: {
      type: 'object',
      properties: {
        budget: { type: ['integer', 'null'] },
        currency: { type: 'string' },
        is_autobid: { type: ['boolean', 'null'] },
        max_bid: { type: ['integer', 'null'] },
        billed_impressions: { type: 'integer' },
        billed_clicks: { type: 'integer' },
        ad_cost: { type: 'integer', description: 'recorded spend, cents' },
        fee_period: { type: 'string', enum: ['Calendar Month', 'Rolling Month'] },
      },
    },
    future_budget_changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { new_budget: { type: 'integer' }, start_date: { type: 'string' }, old_budget: { type: ['integer', 'null'] } },
      },
    },
    page_upgrade_info: {
      type: 'object',
      description: 'a page upgrade’s price (facts: {monthly_rate, cost}); left out, as pbs prices no page upgrades',
      properties: { monthly_rate: { type: 'number' }, cost: { type: 'number' } },
    },
    active_features: { type: 'array', items: { type: 'string' } },
    available_features: { type: 'array', items: { type: 'string' } },
  },
} as const;
