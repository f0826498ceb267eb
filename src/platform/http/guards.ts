import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import { authenticateKnown, authenticatePartner, decodeBasic, type OperatorAuthentication } from './authenticate.js';
import type { AuditDraft } from '../audit/audit-trail.js';
import { operatorGuards } from './operator-guard.js';
import { principalOf } from './typed-routes.js';
import { isRecord, messageOf } from '../values.js';
import {
  grantedInterface,
  type BusinessLinks,
  type LinkCheck,
  type BusinessScope,
  type CredentialVerifier,
  type PartnerRouteConfig,
  type Principal,
} from '../auth/principal.js';
import { firstFew, MAX_BUSINESS_ID_LENGTH, parseBusinessIdList, parseBusinessIdParam } from '../business-ids.js';
import { list, single } from '../query.js';
import { apiError } from '../errors.js';
import { IdempotencyStore, type PendingIdempotency } from '../idempotency.js';
import { databaseAwayError, isOutage } from '../db/availability.js';
import { throttled, type FailureThrottle, type Limits, type RateLimiter, type TokenBuckets } from '../rate-limit.js';
import { portalGuard, type PortalLimits, type PortalSessionVerifier } from './portal-session.js';
import { faultGuard, type FaultInjector } from './fault-injection.js';
import { operationsOf } from './operation-names.js';
import { JSON_UTF8 } from './send-json.js';
import { failureKey, throttledAuthentication } from './auth-throttle.js';
import { declarationProblem } from './route-declaration.js';

export interface GuardOptions {
  verifier: CredentialVerifier;
  links: BusinessLinks;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  defaultLimits: Limits;
  /** Operators' credentials: the bootstrap token, personal tokens, console sessions. */
  operators: OperatorAuthentication;
  /** The audit trail: a request's record when no transaction of it wrote one (audit-trail.ts). */
  audit: { wallNow: () => number; writeAlone: (draft: AuditDraft) => Promise<void> };
  /** Requests per client address to routes anyone may call. */
  publicLimiter: TokenBuckets;
  /** Failed authentications per (client address, identity). */
  authFailures: FailureThrottle;
  /** Portal sessions (routes declaring `config.portal`). */
  portal?: PortalSessionVerifier;
  /** Requests per portal session (a signed-in partner is not limited by its address). */
  portalLimiter: TokenBuckets;
  /** pbs's public origin (PBS_PUBLIC_URL's): cookie changes may come from it (same-origin.ts). */
  publicOrigin: string;
  /** Faults on demand (sandbox): checked on every partner route before its handler. */
  faults?: FaultInjector;
}

/** Routes anyone may call that are not limited per address: probes and scrapers call them often. */
const UNLIMITED_PUBLIC = new Set(['/healthz', '/readyz', '/metrics']);

function partnerFailureKey(request: FastifyRequest): string {
  const basic = decodeBasic(request.headers.authorization);
  return failureKey(request.ip, basic ? `user:${basic.username}` : 'bearer');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed; a route hands it to its service within `partnerWriteOf(request)`. */
    idempotency?: PendingIdempotency;
  }
}

/** A field of a parsed request part (params, query or body), whatever its shape. */
function fieldOf(part: unknown, name: string): unknown {
  return isRecord(part) ? part[name] : undefined;
}

function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Attaches authentication, rate limits and Idempotency-Key handling to every route that declares
 * `config.partner` (or `config.operator`), so a family only states which interface a route belongs to.
 */
export function installGuards(app: FastifyInstance, options: GuardOptions): void {
  const admit = (request: FastifyRequest, reply: FastifyReply, route: PartnerRouteConfig, principal: Principal) => {
    request.principal = principal;
    const iface = grantedInterface(principal, route)!;
    const grant = principal.interfaces[iface];
    const limits: Limits = {
      perSecond: grant?.perSecond ?? route.defaultPerSecond ?? options.defaultLimits.perSecond,
      perDay: grant?.perDay ?? options.defaultLimits.perDay,
    };
    reply.headers(options.rateLimiter.take(`${principal.partnerId}:${iface}`, limits));
  };

  // Callback style, so a token verified recently costs no promise.
  const partnerOnRequest =
    (route: PartnerRouteConfig): onRequestHookHandler =>
    (request, reply, done) => {
      let known: Principal | undefined;
      try {
        known = authenticateKnown(request, route, options.verifier);
        if (known) admit(request, reply, route, known);
      } catch (error) {
        return done(error instanceof Error ? error : new Error(messageOf(error)));
      }
      if (known) return done();
      throttledAuthentication(options.authFailures, partnerFailureKey(request), () => authenticatePartner(request, route, options.verifier))
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
    request.idempotency = { partnerId: request.principal.partnerId, key: value, claim: outcome.claim };
  };

  const idempotencyOnSend: onSendHookHandler = async function idempotencyRecord(request, reply, payload) {
    const pending = request.idempotency;
    if (!pending) return payload;
    request.idempotency = undefined;
    try {
      if (reply.statusCode >= 500) {
        await options.idempotency.release(pending.partnerId, pending.key, { claim: pending.claim });
      } else {
        const contentType = reply.getHeader('content-type');
        await options.idempotency.complete(pending.partnerId, pending.key, {
          statusCode: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body:
            typeof payload === 'string'
              ? payload
              : payload == null
                ? ''
                : Buffer.isBuffer(payload)
                  ? payload.toString('utf8')
                  : JSON.stringify(payload),
        });
      }
    } catch (error) {
      if (!isOutage(error)) throw error;
      // The database went away as the answer went out: the answer could not be kept, so the
      // partner hears 503 and retries; the key is let go once the database is back, or it would
      // answer IDEMPOTENCY_KEY_IN_USE until the takeover time. Answered here, not thrown: a
      // second error of one reply would get Fastify's own error shape, not the catalogue's.
      options.idempotency.releaseLater(pending);
      const away = databaseAwayError();
      reply.code(away.status).headers(away.headers).type(JSON_UTF8);
      return JSON.stringify(away.toBody());
    }
    return payload;
  };

  const operators = operatorGuards(options);

  const publicOnRequest: onRequestHookHandler = function publicLimit(request, _reply, done) {
    const wait = options.publicLimiter.take(request.ip);
    done(wait > 0 ? throttled(wait, `Too many requests from this address; retry in ${wait} seconds.`) : undefined);
  };

  const portalLimits: PortalLimits = {
    publicOrigin: options.publicOrigin,
    perAddress(request) {
      const wait = options.publicLimiter.take(request.ip);
      if (wait > 0) throw throttled(wait, `Too many requests from this address; retry in ${wait} seconds.`);
    },
    perSession(sessionId) {
      const wait = options.portalLimiter.take(sessionId);
      if (wait > 0) throw throttled(wait, `Too many requests in this portal session; retry in ${wait} seconds.`);
    },
  };

  /** A link guard's way when the links are not all known: looks them up, then `admit` passes or refuses the request. */
  const checkThen = (request: FastifyRequest, ids: string[], admit: (check: LinkCheck) => void, done: (error?: Error) => void) => {
    options.links
      .check(principalOf(request).partnerId, ids)
      .then((check) => {
        admit(check);
        done();
      }, done)
      .catch(done);
  };

  /** Checks the partner ↔ business links a route's scope asks for (after validation, before idempotency). */
  const linkGuard = (scope: BusinessScope): preHandlerHookHandler | undefined => {
    if ('param' in scope || 'query' in scope) {
      const admit = (request: FastifyRequest, raw: string, check: LinkCheck) => {
        if (check.unknown.length > 0) throw apiError('BUSINESS_NOT_FOUND', `Business not found: ${raw}`);
        if (check.unlinked.length > 0) throw apiError('AUTHORIZATION_ERROR', `This partner is not authorized for business ${raw}.`);
        request.business = { id: check.resolved.get(raw)! };
      };
      // Callback style: when the link was confirmed lately (nearly always) it costs no promise.
      const guard: preHandlerHookHandler = function businessLinkGuard(request, _reply, done) {
        let raw: string | undefined;
        try {
          raw =
            'param' in scope
              ? single(fieldOf(request.params, scope.param))
              : (single(fieldOf(request.query, scope.query)) ?? single(fieldOf(request.body, scope.query)));
          // Absent: the route refuses the request itself (a required parameter is missing).
          if (raw === undefined || raw === '') return done();
          if (raw.length > MAX_BUSINESS_ID_LENGTH)
            throw apiError('VALIDATION_ERROR', 'The business id is too long.', { field: 'business_id' });
          const known = options.links.knownBusinessIds?.(principalOf(request).partnerId, [raw]);
          if (known) {
            request.business = { id: known[0] };
            return done();
          }
        } catch (error) {
          return done(error instanceof Error ? error : new Error(messageOf(error)));
        }
        const given = raw;
        checkThen(request, [given], (check) => admit(request, given, check), done);
      };
      return guard;
    }
    if ('bodyList' in scope || 'paramList' in scope) {
      return async function businessListLinkGuard(request) {
        const ids =
          'bodyList' in scope
            ? parseBusinessIdList(request.body, scope.bodyList, scope.max)
            : parseBusinessIdParam(single(fieldOf(request.params, scope.paramList)), scope.paramList, scope.max);
        const field = 'bodyList' in scope ? scope.bodyList : scope.paramList;
        const check = await options.links.check(principalOf(request).partnerId, ids);
        const refused = [...check.unknown, ...check.unlinked];
        if (refused.length > 0) {
          throw apiError(
            'AUTHORIZATION_ERROR',
            `This partner is not authorized for these businesses: ${firstFew(refused)}. Nothing was changed.`,
            { field },
          );
        }
      };
    }
    if ('queryList' in scope) {
      const field = scope.queryList;
      const admit = (request: FastifyRequest, unique: string[], check: LinkCheck) => {
        if (check.unknown.length > 0) throw apiError('NOT_FOUND', `Business not found: ${firstFew(check.unknown)}`, { field });
        if (check.unlinked.length > 0)
          throw apiError('AUTHORIZATION_ERROR', `This partner is not authorized for these businesses: ${firstFew(check.unlinked)}.`, {
            field,
          });
        request.businessIds = [...new Set(unique.map((id) => check.resolved.get(id)!))];
      };
      // Callback style: when every link was confirmed lately (nearly always) it costs no promise.
      const guard: preHandlerHookHandler = function businessQueryListGuard(request, _reply, done) {
        let unique: string[];
        try {
          const value = fieldOf(request.query, field);
          const partnerId = principalOf(request).partnerId;
          // A list sent in exactly these words lately (a partner polling the same businesses):
          // one lookup of its text, no parsing, no lookup per id.
          const text = typeof value === 'string' ? value : undefined;
          const kept = text === undefined ? undefined : options.links.knownBusinessList?.(partnerId, text);
          if (kept && kept.given <= scope.max) {
            request.businessIds = kept.businessIds;
            return done();
          }
          const given = list(value);
          if (given.length === 0)
            throw apiError('INVALID_REQUEST', `${field} is required: business ids or aliases, comma-separated`, { field });
          if (given.length > scope.max)
            throw apiError('INVALID_REQUEST', `At most ${scope.max} businesses per request (${given.length} given)`, { field });
          if (given.some((id) => id.length > MAX_BUSINESS_ID_LENGTH))
            throw apiError('INVALID_REQUEST', 'A business id is too long.', { field });
          const known = options.links.knownBusinessIds?.(partnerId, given, text);
          if (known) {
            request.businessIds = distinct(known);
            return done();
          }
          unique = [...new Set(given)];
        } catch (error) {
          return done(error instanceof Error ? error : new Error(messageOf(error)));
        }
        checkThen(request, unique, (check) => admit(request, unique, check), done);
      };
      return guard;
    }
    return undefined;
  };

  app.addHook('onRoute', (route) => {
    const config = route.config;
    const methods = toArray(route.method);
    // Fail closed: a partner or operator path without a usable declaration never starts.
    const problem = declarationProblem(route.url, config);
    if (problem) throw new Error(`Route ${methods.join(',')} ${route.url} ${problem}`);
    if (config?.partner) {
      route.onRequest = [...toArray(route.onRequest), partnerOnRequest(config.partner)];
      const links = linkGuard(config.partner.business);
      if (links) route.preHandler = [...toArray(route.preHandler), links];
      if (options.faults) route.preHandler = [...toArray(route.preHandler), faultGuard(options.faults, operationsOf(route.url))];
      if (methods.some((m) => m === 'POST' || m === 'DELETE')) {
        route.preHandler = [...toArray(route.preHandler), idempotencyPreHandler];
        route.onSend = [...toArray(route.onSend), idempotencyOnSend];
      }
    } else if (config?.operator) {
      route.onRequest = [...toArray(route.onRequest), operators.authenticate(config.operator)];
      if (config.revealsSecret || methods.some((m) => m !== 'GET' && m !== 'HEAD')) {
        route.preHandler = [...toArray(route.preHandler), operators.openAuditDraft];
        route.onSend = [...toArray(route.onSend), operators.recordAuditAlone];
      }
    } else if (config?.portal) {
      if (!options.portal) throw new Error(`Route ${methods.join(',')} ${route.url} is a portal route, and no portal sessions are set up`);
      route.onRequest = [...toArray(route.onRequest), portalGuard(options.portal, portalLimits)];
    } else if (!UNLIMITED_PUBLIC.has(route.url)) {
      route.onRequest = [publicOnRequest, ...toArray(route.onRequest)];
    }
  });
}

/** The first of each value, in order; the list itself when nothing repeats (nearly always). */
function distinct(values: string[]): string[] {
  const seen = new Set(values);
  return seen.size === values.length ? values : [...seen];
}
