import type { Services } from '../../src/app.js';
import { newId } from '../../src/platform/ids.js';
import type { ApiModule, PlatformContext } from '../../src/platform/module.js';
import { SettingsStore } from '../../src/platform/settings.js';

/**
 * Routes that exercise the platform's guards the way a family's routes do (one per auth scheme,
 * a writing POST, a slow POST and a failing POST), so the foundation is tested through real HTTP.
 */
export function probeModule(ctx: PlatformContext, _services: Services): ApiModule {
  let slowRelease: (() => void) | undefined;
  return {
    name: 'probe',
    routes: async (app) => {
      app.get(
        '/probe/bearer/:business_id',
        { config: { partner: { interface: 'reservations', scheme: 'bearer', business: { param: 'business_id' } } } },
        async (request) => ({
          partner: request.principal!.partnerId,
          kind: request.principal!.credentialKind,
          business: request.business!.id,
        }),
      );
      app.get(
        '/probe/engagement',
        { config: { partner: { interface: 'engagement', scheme: 'bearer', business: { unscoped: 'probe' } } } },
        async (request) => ({
          partner: request.principal!.partnerId,
          kind: request.principal!.credentialKind,
        }),
      );
      app.get(
        '/probe/basic',
        { config: { partner: { interface: 'advertising', scheme: 'basic', business: { unscoped: 'probe' } } } },
        async (request) => ({
          partner: request.principal!.partnerId,
          kind: request.principal!.credentialKind,
        }),
      );
      app.get(
        '/probe/subscriptions',
        {
          config: {
            partner: { interface: 'business_subscriptions', scheme: 'bearer', business: { unscoped: 'probe' }, defaultPerSecond: 5 },
          },
        },
        async () => ({ ok: true }),
      );
      // Writes a row per execution, so a test can count how often the handler really ran.
      app.post(
        '/probe/write',
        { config: { partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'probe' } } } },
        async (request, reply) => {
          const id = newId();
          await new SettingsStore(ctx.database.db).set(`probe:${id}`, JSON.stringify(request.body ?? null));
          return reply.code(201).send({ id, received: request.body ?? null });
        },
      );
      app.delete(
        '/probe/write/:id',
        { config: { partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'probe' } } } },
        async (request) => ({
          deleted: (request.params as { id: string }).id,
        }),
      );
      app.post(
        '/probe/slow',
        { config: { partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'probe' } } } },
        async () => {
          await new Promise<void>((resolve) => {
            slowRelease = resolve;
          });
          return { done: true };
        },
      );
      app.post('/probe/release', async () => {
        slowRelease?.();
        return { released: !!slowRelease };
      });
      app.post(
        '/probe/fail',
        { config: { partner: { interface: 'reservations', scheme: 'bearer', business: { unscoped: 'probe' } } } },
        async () => {
          throw new Error('boom');
        },
      );
    },
  };
}
