import { CLI_OPERATOR } from '../platform/auth/operator.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { ReadinessAccess } from '../commands/partner.js';
import { readinessDrillsMigration, readinessMigration, readinessScoresMigration } from './readiness-tables.js';
import { Drills, type DrillSources } from './drill-service.js';
import { Readiness, type ReadinessSources } from './readiness-service.js';
import { readinessAdminRoutes } from './admin-routes.js';
import { readinessPortalRoutes } from './portal-routes.js';

export interface ReadinessServices {
  /** Partners' launch readiness from their own traffic, and the operator's approval. */
  readiness: Readiness;
  /** Drills run against a partner's client (sandbox). */
  drills: Drills;
}

export function readinessServices(
  database: Database,
  clock: Clock,
  sources: ReadinessSources & Omit<DrillSources, 'flushLog'>,
  tracking: boolean,
): ReadinessServices {
  return { readiness: new Readiness(database, clock, sources, tracking), drills: new Drills(database, clock, sources) };
}

/** Launch readiness (docs/readiness.md). Its progress is kept by the request log's writer (readiness-tracker.ts). */
export function readinessModule({ readiness, drills }: ReadinessServices, wallClock: () => number): ApiModule {
  return {
    name: 'readiness',
    migrations: [readinessMigration, readinessDrillsMigration, readinessScoresMigration],
    registerTasks: (tasks) => {
      // A drill whose time is up gives back what it set up, read or not.
      tasks.schedule({ name: 'readiness.drills.close', everyMs: 60_000, run: async () => void (await drills.closeEnded()) });
      // Keeps every partner's place in the ranking, the next SCORED_PER_RUN partners a minute.
      tasks.schedule({ name: 'readiness.scores', everyMs: 60_000, run: async () => void (await readiness.scoreNext()) });
    },
    routes: async (app) => {
      await readinessAdminRoutes(readiness, drills, wallClock)(app);
      await readinessPortalRoutes(readiness, drills)(app);
    },
  };
}

/** What `pbs partner readiness|approve|drill` use (commands/partner.ts), as the CLI's operator. */
export function readinessAccess({ readiness, drills }: ReadinessServices, wallClock: () => number): ReadinessAccess {
  return {
    report: (partnerId) => readiness.report(partnerId),
    markdown: (partnerId) => readiness.markdown(partnerId),
    approve: (partnerId, note) => readiness.approve(partnerId, CLI_OPERATOR.name, note, wallClock()),
    drill: async (partnerId, input) => {
      await readiness.describe(partnerId);
      return drills.start(partnerId, input, CLI_OPERATOR.name);
    },
  };
}
