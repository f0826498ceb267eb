import type { BusinessDirectory } from '../businesses/business-service.js';
import { leadCommand } from '../commands/lead.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { leadAdminRoutes } from './admin-routes.js';
import { LeadService, type LeadServiceOptions } from './lead-service.js';
import { leadsMigration } from './lead-tables.js';

/** The leads family's service: leads and their conversations, each change with its webhook. */
export function leadServices(database: Database, clock: Clock, businesses: BusinessDirectory, options: LeadServiceOptions): LeadService {
  return new LeadService(database, clock, businesses, options);
}

/** Leads (docs/contract/leads.md): the conversation behind every lead webhook; the operator starts and drives them. */
export function leadsModule(service: LeadService): ApiModule {
  return {
    name: 'leads',
    commands: { lead: (args, flags) => leadCommand(service, args, flags) },
    migrations: [leadsMigration],
    routes: async (fastify) => {
      await fastify.register(leadAdminRoutes(service));
    },
  };
}
