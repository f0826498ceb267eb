import type { ApiModule, PlatformContext } from '../platform/module.js';
import { builtAssetsRoutes, builtPageRoute } from '../platform/http/built-pages.js';
import { operationsAdminRoutes, systemRoutes } from './routes.js';
import { findRoutes } from './find-routes.js';
import type { FindSources } from './find.js';

/** Liveness, readiness and metrics: the one module a worker process also serves (its port is for probes). */
export function systemModule(ctx: PlatformContext, state: { ready: () => boolean }): ApiModule {
  return { name: 'system', routes: systemRoutes(ctx, state) };
}

/** The operator's clock and background tasks, "find anything", and the console that the operator API serves. */
export function operationsModule(ctx: PlatformContext, find: FindSources): ApiModule {
  return {
    name: 'operations',
    routes: async (app) => {
      await operationsAdminRoutes(ctx)(app);
      await findRoutes(find)(app);
      // Their own plugins: the static files and their headers stay inside them.
      await app.register(builtAssetsRoutes());
      await app.register(builtPageRoute('/console', 'index.html'));
    },
  };
}
