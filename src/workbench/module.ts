import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { logsCommand } from '../commands/logs.js';
import { RequestLog } from './request-log.js';
import { requestLogMigration } from './request-log-tables.js';
import { requestLogAdminRoutes } from './routes.js';

/** The workbench family's services: the request log (partners' requests as pbs saw them). */
export function workbenchServices(
  database: Database,
  clock: Clock,
  options: Config['requestLog'],
  onError: (error: unknown) => void,
): RequestLog {
  return new RequestLog(database, clock, options, onError);
}

/**
 * The partner's side of pbs (docs/request-log.md): what pbs received and answered, for the
 * operator's API and console and for `pbs logs`.
 */
export function workbenchModule(log: RequestLog): ApiModule {
  return {
    name: 'workbench',
    migrations: [requestLogMigration],
    registerTasks: (tasks) =>
      // Entries past their age or their partner's row budget go every ten minutes (pbs time).
      tasks.schedule({ name: 'request-log.purge', everyMs: 600_000, run: async () => void (await log.purge()) }),
    routes: requestLogAdminRoutes(log),
    commands: { logs: (args, flags) => logsCommand(log, args, flags) },
  };
}
