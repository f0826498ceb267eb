import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import type { ApiModule } from '../platform/module.js';
import { EngagementService, MAX_RANGE_WEEKS } from './engagement-service.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { TaskRunner } from '../platform/tasks/task-runner.js';
import { engagementMigration } from './engagement-tables.js';
import { engagementCommand } from '../commands/engagement.js';
import { businessEngagementSchema, error, importedActivitySchema, weekListSchema, weekSummarySchema } from './operator-schemas.js';
import { sendJson } from '../platform/http/send-json.js';

/** At most 20 businesses per request (spec "Limits"). */
export const MAX_ENGAGEMENT_BUSINESSES = 20;

const partner: PartnerRouteConfig = {
  interface: 'engagement',
  scheme: 'bearer',
  business: { queryList: 'business_ids', max: MAX_ENGAGEMENT_BUSINESSES },
};
const date = { type: 'string', format: 'date' } as const;
const metricsQuery = {
  type: 'object',
  required: ['business_ids'],
  properties: {
    business_ids: {
      type: 'array',
      items: { type: 'string' },
      maxItems: MAX_ENGAGEMENT_BUSINESSES,
      description: 'Business ids or aliases, comma-separated or repeated, at most 20',
    },
    date_range_start: { ...date, description: 'First week wanted (any day of it); default: the most recent scored week' },
    date_range_end: {
      ...date,
      description: `Last week wanted (any day of it); default: the most recent scored week; at most ${MAX_RANGE_WEEKS} weeks in all`,
    },
  },
} as const;
const admin = { admin: true };
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

/** The engagement family's service: activity loads, weekly scoring (a task) and the partner read. */
export function engagementServices(
  database: Database,
  clock: Clock,
  tasks: TaskRunner,
  businesses: BusinessDirectory,
  changes: ChangeFeed,
): EngagementService {
  return new EngagementService(database, clock, tasks, businesses, changes);
}

/**
 * Engagement metrics (spec part 5; docs/contract/reviews-and-engagement.md §7.2; docs/engagement.md): the partner read, and the
 * operator's activity loads, weeks and scoring.
 */
export function engagementModule(service: EngagementService): ApiModule {
  return {
    name: 'engagement',
    tags: [
      {
        name: 'engagement metrics',
        description: 'Weekly engagement, intent and transaction scores of linked businesses (Bearer API key or OAuth access token)',
      },
    ],
    commands: { engagement: (args, flags) => engagementCommand(service, args, flags) },
    migrations: [engagementMigration],
    registerTasks: (tasks) => service.registerTasks(tasks),
    routes: async (fastify) => {
      const app = typedRoutes(fastify);
      app.get(
        '/v3/businesses/engagement',
        {
          config: { partner, docs: { querystring: metricsQuery } },
          schema: {
            tags: ['engagement metrics'],
            security: [{ bearerAuth: [] }],
            summary:
              'Weekly engagement, intent and transaction scores of up to 20 linked businesses, relative to all North American businesses',
            description:
              'Weeks start on Monday. A business without scores in the range answers an empty `metrics` list; an unknown id is 404 NOT_FOUND, one not linked to the caller 403 AUTHORIZATION_ERROR; 21 ids or more are 400 INVALID_REQUEST.',
            querystring: { type: 'object', additionalProperties: true, properties: {} },
            response: {
              200: {
                type: 'object',
                required: ['data'],
                properties: {
                  data: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['business_id', 'metrics'],
                      properties: {
                        business_id: { type: 'string' },
                        metrics: {
                          type: 'array',
                          items: {
                            type: 'object',
                            required: ['start_of_week_date', 'engagement_metric', 'intent_metric', 'transaction_metric'],
                            properties: {
                              start_of_week_date: { type: 'string', format: 'date' },
                              engagement_metric: { type: 'integer', minimum: 1, maximum: 20 },
                              intent_metric: { type: 'integer', minimum: 1, maximum: 10 },
                              transaction_metric: { type: 'integer', minimum: 1, maximum: 4 },
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        // Serialized already (each business's part is kept so). Not async: the answer is usually
        // ready at once, and then costs no promise.
        (request, reply) => sendJson(reply, service.metrics(request.businessIds!, request.query)),
      );

      app.post(
        '/admin/v1/engagement/activity',
        {
          config: admin,
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
          config: admin,
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
          config: admin,
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
          config: admin,
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
    },
  };
}
