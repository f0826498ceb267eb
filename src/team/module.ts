import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { FailureThrottle } from '../platform/rate-limit.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import { auditTrailMigration } from '../platform/audit/audit-tables.js';
import { Team } from './team-service.js';
import { AuditService } from './audit-service.js';
import { teamMigration } from './team-tables.js';
import { teamAdminRoutes, type BootstrapSwitch } from './admin-routes.js';
import { teamSignInRoutes } from './sign-in-routes.js';
import { ssoRoutes } from './sso-routes.js';
import { OperatorSso } from './sso.js';
import { auditCommand, operatorCommand } from '../commands/team.js';

export interface TeamServices {
  /** Operator accounts, personal tokens and console sessions. */
  team: Team;
  /** The audit trail's reads. */
  audit: AuditService;
  /** Single sign-on, when an OpenID Connect provider is configured. */
  sso?: OperatorSso;
}

/** An invitation's setup link lives a week. */
const SETUP_MS = 7 * 86_400_000;

export function teamServices(
  database: Database,
  config: Pick<Config, 'publicUrl' | 'operatorSessionMs' | 'auditRetentionDays' | 'oidc'>,
  keys: SecretKeys,
  wallClock: () => number,
): TeamServices {
  // Whole milliseconds: the times are integer columns (a wall clock may answer fractions).
  const wallNow = () => Math.floor(wallClock());
  const team = new Team(database, {
    publicUrl: config.publicUrl,
    setupMs: SETUP_MS,
    sessionMs: config.operatorSessionMs,
    totpKey: () => keys.key('operator-totp'),
    wallNow,
  });
  const sso = config.oidc
    ? new OperatorSso(config.oidc, database, team, { publicUrl: config.publicUrl, key: () => keys.key('operator-sso'), wallNow })
    : undefined;
  return { team, audit: new AuditService(database, config.auditRetentionDays, wallNow), sso };
}

/** Operators as a team (docs/security.md "Operators and roles", "Audit trail"). */
export function teamModule(
  { team, audit, sso }: TeamServices,
  options: { publicUrl: string; sessionMs: number; failures: FailureThrottle; bootstrap: BootstrapSwitch },
): ApiModule {
  return {
    name: 'team',
    tags: [{ name: 'operator sign-in', description: 'Operator accounts signing in to the console, and setting up an invited account' }],
    // The trail's table is the platform's (the operator guard writes it); its reads and purge are here.
    migrations: [auditTrailMigration, teamMigration],
    registerTasks: (tasks) => {
      tasks.schedule({ name: 'audit.purge', everyMs: 86_400_000, run: async () => void (await audit.purge()) });
      tasks.schedule({ name: 'operator-sessions.purge', everyMs: 3_600_000, run: () => team.purgeEnded() });
    },
    routes: async (app) => {
      await teamAdminRoutes(team, audit, options.bootstrap)(app);
      await teamSignInRoutes(team, options)(app);
      await ssoRoutes(sso, options)(app);
    },
    commands: {
      operator: (args, flags) => operatorCommand(team, args, flags),
      audit: (args, flags) => auditCommand(audit, args, flags),
    },
  };
}
