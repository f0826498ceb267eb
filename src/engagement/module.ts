import type { BusinessDirectory } from '../businesses/business-service.js';
import { engagementCommand } from '../commands/engagement.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { TaskRunner } from '../platform/tasks/task-runner.js';
import { engagementAdminRoutes } from './admin-routes.js';
import { EngagementService } from './engagement-service.js';
import { engagementMigration } from './engagement-tables.js';
import { engagementRoutes } from './routes.js';

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
      await fastify.register(engagementRoutes(service));
      await fastify.register(engagementAdminRoutes(service));
    },
  };
}
