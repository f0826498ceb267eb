import type { ApiModule, PlatformContext } from '../platform/module.js';
import { consoleRoutes } from './console-routes.js';
import { operationsAdminRoutes, systemRoutes } from './routes.js';

/** Liveness, readiness and metrics: the one module a worker process also serves (its port is for probes). */
export function systemModule(ctx: PlatformContext, state: { ready: () => boolean }): ApiModule {
  return { name: 'system', routes: systemRoutes(ctx, state) };
}

/** The operator's clock and background tasks, and the console that the operator API serves. */
export function operationsModule(ctx: PlatformContext): ApiModule {
  return {
    name: 'operations',
    routes: async (app) => {
      await operationsAdminRoutes(ctx)(app);
      // Its own plugin: the console's static files and headers stay inside it.
      await app.register(consoleRoutes());
    },
  };
}
