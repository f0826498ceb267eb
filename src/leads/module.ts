import type { BusinessDirectory } from '../businesses/business-service.js';
import { leadCommand } from '../commands/lead.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { leadAdminRoutes } from './admin-routes.js';
import { LeadPortal, type LeadPortalAccess } from './lead-portal.js';
import { LeadService, type LeadServiceOptions } from './lead-service.js';
import { leadsMigration } from './lead-tables.js';
import { leadPortalRoutes } from './portal-routes.js';

export interface LeadServices {
  /** Leads and their conversations, each change with its webhook (the operator's side, the demo). */
  conversations: LeadService;
  /** The partner portal's view of its businesses' leads. */
  portal: LeadPortal;
}

/** The leads family's services. */
export function leadServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  options: LeadServiceOptions,
  access: LeadPortalAccess,
): LeadServices {
  const conversations = new LeadService(database, clock, businesses, options);
  return { conversations, portal: new LeadPortal(conversations, access) };
}

/** Leads (docs/contract/leads.md): the conversation behind every lead webhook; the operator starts and drives them. */
export function leadsModule(services: LeadServices): ApiModule {
  return {
    name: 'leads',
    commands: { lead: (args, flags) => leadCommand(services.conversations, args, flags) },
    migrations: [leadsMigration],
    routes: async (fastify) => {
      await fastify.register(leadAdminRoutes(services.conversations));
      await fastify.register(leadPortalRoutes(services.portal));
    },
  };
}
