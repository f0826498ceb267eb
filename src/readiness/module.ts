import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { readinessMigration } from './readiness-tables.js';
import { Readiness, type ReadinessSources } from './readiness-service.js';
import { readinessAdminRoutes } from './admin-routes.js';
import { readinessPortalRoutes } from './portal-routes.js';

export interface ReadinessServices {
  /** Partners' launch readiness from their own traffic, and the operator's approval. */
  readiness: Readiness;
}

export function readinessServices(database: Database, clock: Clock, sources: ReadinessSources, tracking: boolean): ReadinessServices {
  return { readiness: new Readiness(database, clock, sources, tracking) };
}

/** Launch readiness (docs/readiness.md). Its progress is kept by the request log's writer (readiness-tracker.ts). */
export function readinessModule({ readiness }: ReadinessServices, wallClock: () => number): ApiModule {
  return {
    name: 'readiness',
    migrations: [readinessMigration],
    routes: async (app) => {
      await readinessAdminRoutes(readiness, wallClock)(app);
      await readinessPortalRoutes(readiness)(app);
    },
  };
}
