import type { ApiModule } from '../platform/module.js';
import { subscriptionAdminRoutes } from './admin-routes.js';
import { subscriptionRoutes } from './routes.js';
import { APPLY_TASK, type SubscriptionService } from './subscription-service.js';
import { subscriptionLinksMigration, subscriptionsMigration } from './subscription-tables.js';

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
