import type { BusinessDirectory } from '../businesses/business-service.js';
import { leadCommand } from '../commands/lead.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { leadAdminRoutes } from './admin-routes.js';
import { LeadPortal, type LeadPortalAccess } from './lead-portal.js';
import { LeadService, type LeadServiceOptions } from './lead-service.js';
import { leadEventMessagesMigration, leadsMigration, leadWebhookSubscriptionsMigration } from './lead-tables.js';
import { LeadWebhooks, type LeadWebhookAccess } from './lead-webhooks.js';
import { leadPortalRoutes } from './portal-routes.js';
import { LeadApi, type LeadApiAccess } from './lead-api.js';
import { leadRoutes } from './routes.js';
import { leadLinks } from './lead-views.js';

export interface LeadServices {
  /** Leads and their conversations, each change with its webhook (the operator's side, the demo). */
  conversations: LeadService;
  /** The partner portal's view of its businesses' leads. */
  portal: LeadPortal;
  /** The partner's Leads API, acting for a business user. */
  api: LeadApi;
  /** Self-serve lead webhook subscriptions, and who they make receive a business's lead events. */
  webhooks: LeadWebhooks;
}

/** The leads family's services. */
export function leadServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  options: LeadServiceOptions,
  access: LeadPortalAccess & LeadApiAccess & LeadWebhookAccess,
): LeadServices {
  const conversations = new LeadService(database, clock, businesses, options);
  return {
    conversations,
    portal: new LeadPortal(conversations, access),
    api: new LeadApi(database, clock, businesses, access, { ...options, links: leadLinks(options.publicUrl) }),
    webhooks: new LeadWebhooks(database, clock, access),
  };
}

/** Leads (docs/contract/leads.md): the conversation behind every lead webhook; the operator starts and drives them. */
export function leadsModule(services: LeadServices): ApiModule {
  return {
    name: 'leads',
    tags: [
      {
        name: 'leads',
        description:
          'Leads API: requests for a quote and their conversations. Takes a business user’s OAuth access token (authorization code ' +
          'flow: /oauth2/authorize, then /oauth2/token), never an API key.',
      },
    ],
    commands: { lead: (args, flags) => leadCommand(services.conversations, args, flags) },
    migrations: [leadsMigration, leadWebhookSubscriptionsMigration, leadEventMessagesMigration],
    routes: async (fastify) => {
      await fastify.register(leadRoutes(services.api, services.webhooks));
      await fastify.register(leadAdminRoutes(services.conversations));
      await fastify.register(leadPortalRoutes(services.portal));
    },
  };
}
