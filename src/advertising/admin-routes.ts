import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { AdvertisingOperator } from './advertising-operator.js';
import { JOB_STATES, PROGRAM_STATES, PROGRAM_TYPES } from './advertising-tables.js';
import {
  categoryPolicySchema,
  error,
  flagsSchema,
  importedMetricsSchema,
  jobListSchema,
  operatorJobSchema,
  programListSchema,
  promotionListSchema,
  promotionSchema,
  settingsSchema,
} from './operator-schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
/** A promotion's budget bounds in cents: up to a billion dollars a month. */
const MAX_PROMOTION_CENTS = 100_000_000_000;
const text = (maxLength = 200) => ({ type: 'string', minLength: 1, maxLength }) as const;
const paging = {
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
  offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
} as const;
const jobParams = { type: 'object', required: ['job_id'], properties: { job_id: text(64) } } as const;
const businessParams = { type: 'object', required: ['business_id'], properties: { business_id: text() } } as const;
const categoryParams = { type: 'object', required: ['category'], properties: { category: text(100) } } as const;
const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
} as const;

/** The operator's advertising API: programs and jobs, business flags, category policy, promotions, recorded metrics. */
export function advertisingAdminRoutes(operator: AdvertisingOperator) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/advertising/programs',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: "Every partner's advertising programs, newest first, with recorded metrics",
          querystring: {
            type: 'object',
            properties: {
              ...paging,
              partner_id: text(64),
              business_id: text(),
              state: { type: 'string', enum: PROGRAM_STATES },
            },
          },
          response: { 200: programListSchema },
        },
      },
      async (request) => operator.programs(request.query),
    );
    app.get(
      '/admin/v1/advertising/jobs',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Advertising jobs with their receipts, newest first',
          querystring: {
            type: 'object',
            properties: { ...paging, partner_id: text(64), status: { type: 'string', enum: JOB_STATES } },
          },
          response: { 200: jobListSchema },
        },
      },
      async (request) => operator.jobs(request.query),
    );
    for (const [action, summary] of [
      ['hold', 'Hold a PROCESSING job: partners keep seeing 202 until it is released or completed'],
      ['release', 'Release a held job: applied after the processing delay as usual'],
      ['complete', 'Apply a job now (held or not) and answer its receipt'],
    ] as const) {
      app.post(
        `/admin/v1/advertising/jobs/:job_id/${action}`,
        {
          config: { operator: 'support' },
          schema: { tags, security, summary, params: jobParams, response: { 200: operatorJobSchema, 404: error, 409: error } },
        },
        async (request) => operator[action](request.params.job_id),
      );
    }
    app.get(
      '/admin/v1/advertising/settings',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'Sandbox advertising settings', response: { 200: settingsSchema } },
      },
      async () => operator.settings(),
    );
    app.put(
      '/admin/v1/advertising/settings',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Change sandbox advertising settings: hold_new_jobs keeps every new job PROCESSING until released',
          body: { type: 'object', additionalProperties: false, properties: { hold_new_jobs: { type: 'boolean' } } },
          response: { 200: settingsSchema },
        },
      },
      async (request) => operator.setSettings(request.body),
    );
    app.get(
      '/admin/v1/advertising/businesses/:business_id/flags',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: "A business's advertising flags",
          params: businessParams,
          response: { 200: flagsSchema, 404: error },
        },
      },
      async (request) => operator.flags(request.params.business_id),
    );
    app.put(
      '/admin/v1/advertising/businesses/:business_id/flags',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Set advertising flags: removed_from_search ends running programs; restricted_from_advertising refuses new ones',
          params: businessParams,
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { removed_from_search: { type: 'boolean' }, restricted_from_advertising: { type: 'boolean' } },
          },
          response: { 200: flagsSchema, 404: error },
        },
      },
      async (request) => operator.setFlags(request.params.business_id, request.body),
    );
    app.get(
      '/admin/v1/advertising/category-policy',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'Categories declined for CPC advertising', response: { 200: categoryPolicySchema } },
      },
      async () => operator.categoryPolicy(),
    );
    app.put(
      '/admin/v1/advertising/category-policy/:category',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Decline a category for CPC advertising (UNSUPPORTED_CATEGORIES)',
          params: categoryParams,
          body: { type: ['object', 'null'], additionalProperties: false, properties: { reason: text(500) } },
          response: { 200: categoryPolicySchema, 400: error },
        },
      },
      async (request) => operator.declineCategory(request.params.category, request.body?.reason),
    );
    app.delete(
      '/admin/v1/advertising/category-policy/:category',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Allow a declined category again',
          params: categoryParams,
          response: { 200: categoryPolicySchema },
        },
      },
      async (request) => operator.allowCategory(request.params.category),
    );
    app.get(
      '/admin/v1/advertising/promotions',
      { config: { operator: 'viewer' }, schema: { tags, security, summary: 'Promotion codes', response: { 200: promotionListSchema } } },
      async () => operator.promotions(),
    );
    app.put(
      '/admin/v1/advertising/promotions/:code',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Create or replace a promotion code (docs/contract/advertising.md §8.9)',
          params: codeParams,
          body: {
            type: 'object',
            additionalProperties: false,
            properties: {
              program_types: {
                type: 'array',
                minItems: 1,
                maxItems: PROGRAM_TYPES.length,
                items: { type: 'string', enum: [...PROGRAM_TYPES] },
                default: ['CPC'],
              },
              min_budget: { type: ['integer', 'null'], minimum: 0, maximum: MAX_PROMOTION_CENTS },
              max_budget: { type: ['integer', 'null'], minimum: 0, maximum: MAX_PROMOTION_CENTS },
              months: { type: 'integer', minimum: 1, maximum: 24, default: 6 },
              active: { type: 'boolean', default: true },
            },
          },
          response: { 200: promotionSchema, 400: error },
        },
      },
      async (request) => operator.savePromotion(request.params.code, request.body),
    );
    app.post(
      '/admin/v1/advertising/metrics',
      {
        config: { operator: 'admin' },
        bodyLimit: 16 * 1024 * 1024,
        schema: {
          tags,
          security,
          summary: "Record programs' daily spend, billed clicks and impressions (JSON lines; every line is checked before any is stored)",
          description:
            'Body: application/x-ndjson, one {"program_id", "date": "YYYY-MM-DD", "spend" (cents), "billed_clicks", "billed_impressions"} per line, at most 10,000 lines; a day given again replaces its figures.',
          response: { 200: importedMetricsSchema, 400: error },
        },
      },
      async (request) => operator.importMetrics(typeof request.body === 'string' ? request.body : ''),
    );
  };
}
