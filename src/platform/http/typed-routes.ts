import type { Operator } from '../auth/operator.js';
import type { FastifyInstance, FastifyRequest, FastifyTypeProvider } from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Principal } from '../auth/principal.js';
import type { PartnerWrite } from '../idempotency.js';

/**
 * A route file's app, typed from its JSON schemas (docs/adr/0004-typed-routes.md): a handler
 * reads `params`, `query` and `body` as the route's `schema` declares them, with no cast. Routes
 * whose parameters the service checks itself (the spec gives bad values their own codes) declare
 * an open schema and read `Record<string, unknown>`; their typed parse function is the service's.
 */
export function typedRoutes(app: FastifyInstance) {
  return app.withTypeProvider<RequestSchemas>();
}

/**
 * Types what a request carries from the route's schemas. Replies are not typed from the
 * response schemas: several services answer with JSON they serialized themselves (openings,
 * engagement, job receipts), and the response schemas type the SDK through openapi.json instead.
 */
interface RequestSchemas extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

/**
 * The partner a partner route acts for. The route's guard (guards.ts) sets it before any
 * handler runs, and a route without a partner declaration does not start, so its absence here is
 * a fault of pbs, never of the request.
 */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`${request.method} ${request.routeOptions.url ?? request.url} has no partner declaration, so no principal`);
  return request.principal;
}

/** The operator of a route declaring `config.operator` (the guard has set it by then). */
export function operatorOf(request: FastifyRequest): Operator {
  if (!request.operator)
    throw new Error(`${request.method} ${request.routeOptions.url ?? request.url} has no operator declaration, so no operator`);
  return request.operator;
}

/** What a partner write hands its service: the request's id and the Idempotency-Key it claimed (idempotency.ts). */
export function partnerWriteOf(request: FastifyRequest): PartnerWrite {
  return { requestId: request.id, idempotency: request.idempotency };
}

/**
 * The schema of parameters a service checks itself (with the spec's own error codes): any
 * object, read by the handler as `Record<string, unknown>`.
 */
export const openObject = { type: 'object', additionalProperties: true } as const;
