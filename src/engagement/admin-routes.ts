import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import type { EngagementService } from './engagement-service.js';
import { businessEngagementSchema, error, importedActivitySchema, weekListSchema, weekSummarySchema } from './operator-schemas.js';

const adminTags = ['operator'];
const adminSecurity = [{ adminToken: [] }];
const weekParams = {
  type: 'object',
  required: ['week'],
  properties: { week: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
} as const;
const businessParams = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

/** The operator's side of engagement: activity loads, the weeks and their scoring, a business's scores (docs/engagement.md). */
export function engagementAdminRoutes(service: EngagementService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/admin/v1/engagement/activity',
      {
        config: { operator: 'admin' },
        bodyLimit: 32 * 1024 * 1024,
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary:
            "Load businesses' weekly activity (JSON lines; every line is checked before any is stored); the weeks touched are scored again",
          description:
            'Body: application/x-ndjson, one {"business_id" (id or alias), "week" (YYYY-MM-DD, any day of the week), "page_views", "website_clicks", "bookmarks", "calls_and_messages", "direction_clicks", "reviews_and_photos", "check_ins", "transactions"} per line (counts default to 0), at most 100,000 lines; a (business, week) given again replaces its figures.',
          response: { 200: importedActivitySchema, 400: error },
        },
      },
      async (request) => service.importJsonLines(typeof request.body === 'string' ? request.body : ''),
    );
    app.get(
      '/admin/v1/engagement/weeks',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Weeks with activity, newest first: scored or waiting for scoring, and how many North American businesses were scored',
          querystring: pagingQuerySchema({ defaultLimit: 52, maxLimit: 520 }),
          response: { 200: weekListSchema },
        },
      },
      async (request) => service.weeks(request.query),
    );
    app.post(
      '/admin/v1/engagement/weeks/:week/score',
      {
        config: { operator: 'admin' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Score the week holding this date now (when its data changed since its last scoring)',
          params: weekParams,
          response: { 200: weekSummarySchema, 400: error },
        },
      },
      async (request) => service.scoreWeekOf(request.params.week),
    );
    app.get(
      '/admin/v1/businesses/:business_id/engagement',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: "A business's weekly activity and scores",
          params: businessParams,
          response: { 200: businessEngagementSchema, 404: error },
        },
      },
      async (request) => service.business(request.params.business_id),
    );
  };
}
