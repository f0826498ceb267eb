import type { ApiModule } from '../platform/module.js';
import {
  webhookAttemptsTimeIndexMigration,
  webhookDeliveriesByMessageMigration,
  webhookShuffleMigration,
  webhooksMigration,
} from './webhook-tables.js';
import { WebhookService, type WebhookAudience } from './webhook-service.js';
import { WebhookDeliverer } from './deliverer.js';
import type { AddressPolicy } from './address-guard.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { EventRelay } from '../platform/event-relay.js';
import { eventCommand, type EmitLead } from '../commands/event.js';
import { webhookCommand } from '../commands/webhook.js';
import { webhookPortalRoutes } from './portal-routes.js';
import { webhookAdminRoutes } from './admin-routes.js';

export interface WebhookServices {
  /** Endpoints, verification, fan-out of events into messages, the operator's view. */
  endpoints: WebhookService;
  /** Claims due deliveries and POSTs them (background work, in every process that runs it). */
  deliverer: WebhookDeliverer;
}

/**
 * The webhooks family's services over the event relay: the relay hands committed events to
 * `endpoints.fanOut`, which writes deliveries and wakes the deliverer (docs/adr/0006).
 */
export function webhookServices(
  database: Database,
  clock: Clock,
  config: Config['webhooks'],
  policy: AddressPolicy,
  audience: WebhookAudience,
  businesses: BusinessDirectory,
  relay: EventRelay,
): WebhookServices {
  const deliverer = new WebhookDeliverer(database, clock, config, policy);
  const endpoints = new WebhookService(
    database,
    clock,
    config,
    policy,
    audience,
    businesses,
    () => deliverer.wake(),
    () => relay.wake(),
  );
  relay.register((trx, events) => endpoints.fanOut(trx, events));
  return { endpoints, deliverer };
}

/** Operator side of webhooks: endpoints and their verification, events, deliveries. */
export function webhooksModule(service: WebhookService, emitLead: EmitLead): ApiModule {
  return {
    name: 'webhooks',
    commands: {
      webhook: (args, flags) => webhookCommand(service, args, flags),
      event: (args, flags) => eventCommand(service, emitLead, args, flags),
    },
    migrations: [webhooksMigration, webhookAttemptsTimeIndexMigration, webhookShuffleMigration, webhookDeliveriesByMessageMigration],
    routes: async (fastify) => {
      await webhookPortalRoutes(service)(fastify);
      await fastify.register(webhookAdminRoutes(service));
    },
  };
}
