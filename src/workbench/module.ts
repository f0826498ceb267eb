import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { logsCommand } from '../commands/logs.js';
import { RequestLog, type CausedLookup } from './request-log.js';
import {
  requestLogFaultMigration,
  requestLogFileMigration,
  requestLogMigration,
  requestLogRequestIdMigration,
} from './request-log-tables.js';
import { faultRulesMigration } from './fault-tables.js';
import { Faults } from './faults.js';
import { faultRoutes } from './fault-routes.js';
import { faultCommand } from '../commands/fault.js';
import { requestLogAdminRoutes } from './routes.js';
import { Portal, type PortalPartners } from './portal.js';
import { portalMigration, portalSessionStampMigration } from './portal-tables.js';
import { portalRoutes } from './portal-routes.js';
import { portalSignInRoutes } from './portal-sign-in-routes.js';
import { builtPageRoute } from '../platform/http/built-pages.js';

export interface WorkbenchServices {
  /** Partners' requests as pbs saw them. */
  requestLog: RequestLog;
  /** Portal links and sessions. */
  portal: Portal;
  /** Faults on demand (sandbox). */
  faults: Faults;
}

/** The workbench family's services, over what it needs of the partners family. */
export function workbenchServices(
  database: Database,
  clock: Clock,
  wallClock: () => number,
  config: Pick<Config, 'requestLog' | 'publicUrl' | 'portalSessionMs' | 'sandbox'>,
  partners: PortalPartners,
  causedBy: CausedLookup,
  onError: (error: unknown) => void,
  changes: ChangeFeed,
): WorkbenchServices {
  return {
    requestLog: new RequestLog(database, clock, config.requestLog, onError, causedBy),
    portal: new Portal(database, partners, {
      publicUrl: config.publicUrl,
      sessionMs: config.portalSessionMs,
      sandbox: config.sandbox,
      wallClock,
    }),
    faults: new Faults(database, clock, changes, { sandbox: config.sandbox }),
  };
}

/**
 * The partner's side of pbs (docs/request-log.md): what pbs received and answered, for the
 * operator's API and console and for `pbs logs`.
 */
export function workbenchModule({ requestLog: log, portal, faults }: WorkbenchServices, publicUrl: string): ApiModule {
  return {
    name: 'workbench',
    tags: [
      {
        name: 'portal',
        description:
          'The partner portal (a session from a portal link; its pages at /portal): your own requests, errors with hints, webhooks and faults',
      },
    ],
    migrations: [
      requestLogMigration,
      portalMigration,
      requestLogFaultMigration,
      faultRulesMigration,
      requestLogFileMigration,
      portalSessionStampMigration,
      requestLogRequestIdMigration,
    ],
    registerTasks: (tasks) => {
      // Entries past their age or their partner's row budget go every ten minutes (pbs time), and ended portal links and sessions.
      tasks.schedule({ name: 'request-log.purge', everyMs: 600_000, run: async () => void (await log.purge()) });
      tasks.schedule({ name: 'portal.purge', everyMs: 3_600_000, run: () => portal.purgeEnded() });
      tasks.schedule({ name: 'faults.purge', everyMs: 3_600_000, run: () => faults.purgeEnded() });
    },
    routes: async (app) => {
      await requestLogAdminRoutes(log)(app);
      await portalRoutes(portal, log, publicUrl)(app);
      await portalSignInRoutes(portal, publicUrl)(app);
      await faultRoutes(faults)(app);
      // The portal's pages (console/portal.html; their assets are served with the console's).
      await app.register(builtPageRoute('/portal', 'portal.html'));
    },
    commands: { logs: (args, flags) => logsCommand(log, args, flags), fault: (args, flags) => faultCommand(faults, args, flags) },
  };
}
