import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { authenticateAdmin, authenticateKnownBearer, authenticatePartner } from '../auth/authenticate.js';
import type { CredentialVerifier, PartnerRouteConfig, Principal } from '../auth/principal.js';
import { IdempotencyStore } from '../idempotency.js';
import type { Limits, RateLimiter } from '../rate-limit.js';

export interface GuardOptions {
  verifier: CredentialVerifier;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  defaultLimits: Limits;
  /** Read per request: the admin token may be created after the routes are registered. */
  adminTokenHash: () => string;
}

interface IdempotentRequest {
  partnerId: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotentRequest;
  }
}

function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Attaches authentication, rate limits and Idempotency-Key handling to every route that declares
 * `config.partner` (or `config.admin`), so a family only states which interface a route belongs to.
 */
export function installGuards(app: FastifyInstance, options: GuardOptions): void {
  const admit = (request: FastifyRequest, reply: FastifyReply, route: PartnerRouteConfig, principal: Principal) => {
    request.principal = principal;
    const grant = principal.interfaces[route.interface];
    const limits: Limits = {
      perSecond: grant?.perSecond ?? route.defaultPerSecond ?? options.defaultLimits.perSecond,
      perDay: grant?.perDay ?? options.defaultLimits.perDay,
    };
    reply.headers(options.rateLimiter.take(`${principal.partnerId}:${route.interface}`, limits));
  };

  // Callback style, so a token verified recently costs no promise.
  const partnerOnRequest =
    (route: PartnerRouteConfig): onRequestHookHandler =>
    (request, reply, done) => {
      let known: Principal | undefined;
      try {
        known = authenticateKnownBearer(request, route, options.verifier);
        if (known) admit(request, reply, route, known);
      } catch (error) {
        return done(error as Error);
      }
      if (known) return done();
      authenticatePartner(request, route, options.verifier)
        .then((principal) => admit(request, reply, route, principal))
        .then(() => done(), done);
    };

  const idempotencyPreHandler: preHandlerHookHandler = async function idempotencyGuard(request, reply) {
    const key = request.headers['idempotency-key'];
    if (key === undefined || !request.principal) return;
    const value = Array.isArray(key) ? key[0] : key;
    IdempotencyStore.validateKey(value);
    const fingerprint = IdempotencyStore.fingerprint(request.method, request.url, request.body);
    const outcome = await options.idempotency.begin(request.principal.partnerId, value, fingerprint);
    if (outcome.kind === 'replay') {
      const { response } = outcome;
      reply.code(response.statusCode).header('idempotent-replayed', 'true');
      if (response.contentType) reply.header('content-type', response.contentType);
      return reply.send(response.body);
    }
    request.idempotency = { partnerId: request.principal.partnerId, key: value };
  };

  const idempotencyOnSend: onSendHookHandler = async function idempotencyRecord(request, reply, payload) {
    const pending = request.idempotency;
    if (!pending) return payload;
    request.idempotency = undefined;
    if (reply.statusCode >= 500) {
      await options.idempotency.release(pending.partnerId, pending.key);
    } else {
      const contentType = reply.getHeader('content-type');
      await options.idempotency.complete(pending.partnerId, pending.key, {
        statusCode: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : null,
        body: typeof payload === 'string' ? payload : payload == null ? '' : String(payload),
      });
    }
    return payload;
  };

  const adminOnRequest: onRequestHookHandler = async function adminGuard(request) {
    authenticateAdmin(request, options.adminTokenHash());
  };

  app.addHook('onRoute', (route) => {
    const config = route.config as { partner?: PartnerRouteConfig; admin?: boolean } | undefined;
    if (config?.partner) {
      route.onRequest = [...toArray(route.onRequest), partnerOnRequest(config.partner)];
      const methods = toArray(route.method);
      if (methods.some((m) => m === 'POST' || m === 'DELETE')) {
        route.preHandler = [...toArray(route.preHandler), idempotencyPreHandler];
        route.onSend = [...toArray(route.onSend), idempotencyOnSend];
      }
    } else if (config?.admin) {
      route.onRequest = [...toArray(route.onRequest), adminOnRequest];
    }
  });
}
