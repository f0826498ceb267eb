import type { BusinessDirectory } from '../businesses/business-service.js';
import { oauthCommand, ownerCommand } from '../commands/owner.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import { businessUserAdminRoutes } from './admin-routes.js';
import { BusinessUserAuthorization, type OauthClients } from './authorization-service.js';
import { authorizeRoutes } from './authorize-routes.js';
import { AuthorizationRevocation } from './authorization-revocation.js';
import { BusinessUserService } from './owner-service.js';
import { businessUserGrantsMigration, businessUserPasswordsMigration, businessUsersMigration } from './owner-tables.js';
import { redirectUriAdminRoutes } from './redirect-uri-routes.js';
import { tokenRoutes } from './token-routes.js';

export interface OwnerServices {
  /** Business users and the businesses they manage. */
  users: BusinessUserService;
  /** Their authorization of partners: codes, tokens, and what a token reaches. */
  authorization: BusinessUserAuthorization;
  /** Ending authorizations: by the partner's app (RFC 7009) or the operator. */
  revocation: AuthorizationRevocation;
}

/** What the owners family is built from beside the platform. */
export interface OwnerDependencies {
  businesses: BusinessDirectory;
  clients: OauthClients;
  keys: SecretKeys;
  sandbox: boolean;
  /** Told when authorizations end: verified tokens are forgotten. */
  onRevoked: () => void;
}

/** The owners family's services. */
export function ownerServices(database: Database, clock: Clock, deps: OwnerDependencies): OwnerServices {
  return {
    users: new BusinessUserService(database, clock, deps.businesses),
    authorization: new BusinessUserAuthorization(database, clock, deps.clients, deps.keys, deps.sandbox),
    revocation: new AuthorizationRevocation(database, clock, deps.onRevoked),
  };
}

/**
 * Business users (docs/owners.md): the people a partner acts for once they authorize it, the
 * authorization page they do it on, and the partners' redirect URIs.
 */
export function ownersModule(
  services: OwnerServices,
  options: { publicUrl: string; sandbox: boolean; requirePartner: (partnerId: string) => Promise<void>; failures: FailureThrottle },
): ApiModule {
  return {
    name: 'owners',
    commands: {
      owner: (args, flags) => ownerCommand(services.users, args, flags),
      oauth: (args, flags) => oauthCommand(services.authorization, options.requirePartner, args, flags),
    },
    migrations: [businessUsersMigration, businessUserGrantsMigration, businessUserPasswordsMigration],
    routes: async (fastify) => {
      await fastify.register(businessUserAdminRoutes(services.users, services.revocation));
      await fastify.register(redirectUriAdminRoutes(services.authorization, options.requirePartner));
      await fastify.register(tokenRoutes(services.users));
      await fastify.register(authorizeRoutes(services.authorization, services.users, options));
    },
  };
}
