import type { ApiModule } from '../platform/module.js';
import { subscriptionAdminRoutes } from './admin-routes.js';
import { subscriptionRoutes } from './routes.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { TaskRunner } from '../platform/tasks/task-runner.js';
import type { BusinessLinks } from '../platform/auth/principal.js';
import { APPLY_TASK, SubscriptionService } from './subscription-service.js';
import { subscriptionLinksMigration, subscriptionsMigration } from './subscription-tables.js';

/** The subscriptions family's service: requests applied by a background task, over the partners' business links. */
export function subscriptionServices(
  database: Database,
  clock: Clock,
  tasks: TaskRunner,
  links: BusinessLinks,
  businesses: BusinessDirectory,
): SubscriptionService {
  return new SubscriptionService(database, clock, tasks, links, businesses);
}

/**
 * Subscriptions: business subscriptions, the replaced webhook allow-list and listing management
 * (routes.ts), and the operator's view of their requests (admin-routes.ts).
 */
export function subscriptionsModule(service: SubscriptionService): ApiModule {
  return {
    name: 'subscriptions',
    tags: [
      { name: 'subscriptions', description: 'Business subscriptions, the replaced webhook allow-list, deprecated listing management' },
    ],
    migrations: [subscriptionsMigration, subscriptionLinksMigration],
    registerTasks: (tasks) => tasks.register(APPLY_TASK, (payload) => service.apply(payload.request_id)),
    routes: async (fastify) => {
      await fastify.register(subscriptionRoutes(service));
      await fastify.register(subscriptionAdminRoutes(service));
    },
  };
}
