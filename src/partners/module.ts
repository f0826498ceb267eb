import type { ApiModule } from '../platform/module.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import { partnerCommand, type PortalAccess, type ReadinessAccess } from '../commands/partner.js';
import type { CredentialService } from './credential-service.js';
import { PartnerService } from './partner-service.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { partnerPortalRoutes } from './portal-routes.js';
import { oauthRoutes, type DelegatedGrants } from './oauth-routes.js';
import type { OauthClientService, OauthClientView } from './oauth-clients.js';
import { partnerAdminRoutes } from './routes.js';

/**
 * The partners family's service: partners, their interfaces and business links. `onAccessChanged`
 * runs after any change to what a credential may do; links are kept `linkCacheMs` and their
 * changes told to other processes on `changes`.
 */
export function partnerServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  onAccessChanged: () => void,
  linkCacheMs: number,
  changes: ChangeFeed,
): PartnerService {
  return new PartnerService(database, clock, businesses, onAccessChanged, linkCacheMs, changes);
}

/**
 * Partners, their interfaces, credentials and business links (the operator's side), and the
 * OAuth token endpoint partners' clients call. The tables are foundation migrations (app.ts):
 * every guard reads them.
 */
export function partnersModule(
  partners: PartnerService,
  credentials: CredentialService,
  authFailures: FailureThrottle,
  portal: PortalAccess,
  readiness: ReadinessAccess,
  oauth: {
    clients: OauthClientService;
    grants: DelegatedGrants;
    revoke: (client: OauthClientView, token: string | undefined) => Promise<void>;
  },
): ApiModule {
  return {
    name: 'partners',
    tags: [
      {
        name: 'oauth',
        description:
          'Access tokens: a partner’s own (client credentials), and a business user’s (authorization code with PKCE, for the Leads API)',
      },
    ],
    routes: async (app) => {
      await partnerAdminRoutes(partners, credentials)(app);
      await oauthRoutes(oauth.clients, authFailures, oauth.grants, oauth.revoke)(app);
      await partnerPortalRoutes(partners, credentials, portal)(app);
    },
    commands: { partner: (args, flags) => partnerCommand({ partners, credentials, portal, readiness }, args, flags) },
  };
}
