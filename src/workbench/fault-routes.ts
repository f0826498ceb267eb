import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { MAX_LISTED, type Faults } from './faults.js';

const error = { $ref: 'ErrorResponse#' } as const;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** A rule's fields (docs/faults.md); the service checks them, answering 400 VALIDATION_ERROR with the field. */
const ruleBody = {
  type: 'object',
  required: ['operation'],
  properties: {
    operation: { type: 'string', description: 'As /docs names it, e.g. `POST /v3/bookings/{business_id}/holds`' },
    business_id: { type: 'string', description: 'Only calls for this business' },
    action: { type: 'string', enum: ['error', 'latency', 'drop'], default: 'error' },
    status: { type: 'integer', minimum: 400, maximum: 599, default: 503 },
    error_code: { type: 'string', description: 'A code of the error catalogue; default: the status’s' },
    retry_after_seconds: { type: 'integer', minimum: 0, maximum: 3600 },
    latency_ms: { type: 'integer', minimum: 1, maximum: 60000, default: 1000 },
    count: { type: 'integer', minimum: 1, maximum: 1000000, description: 'Act on this many calls; default: every one' },
    percent: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
    expires_in_seconds: { type: 'integer', minimum: 1, maximum: 604800, default: 3600 },
  },
} as const;
const rule = {
  type: 'object',
  required: ['id', 'partner_id', 'operation', 'action', 'percent', 'expires_at'],
  properties: {
    id: { type: 'string' },
    partner_id: { type: 'string' },
    operation: { type: 'string' },
    business_id: { type: ['string', 'null'] },
    action: { type: 'string' },
    status: { type: ['integer', 'null'] },
    error_code: { type: ['string', 'null'] },
    retry_after_seconds: { type: ['integer', 'null'] },
    latency_ms: { type: ['integer', 'null'] },
    remaining: { type: ['integer', 'null'], description: 'Calls left to act on; null: every one until it expires' },
    percent: { type: 'integer' },
    expires_at: { type: 'string' },
  },
} as const;
const ruleList = { type: 'object', required: ['faults'], properties: { faults: { type: 'array', items: rule } } } as const;
const faultParams = {
  type: 'object',
  required: ['fault_id'],
  properties: { fault_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** Faults on demand (sandbox): the operator's and the partner portal's routes. */
export function faultRoutes(faults: Faults) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    // A partner operation pbs serves: `METHOD /path/{param}` of a route outside the operator API and the portal.
    const isOperation = (operation: string) => {
      const [method, path, ...rest] = operation.split(' ');
      if (rest.length > 0 || !METHODS.has(method) || !path?.startsWith('/') || /^\/(admin|portal)\//.test(path)) return false;
      return fastify.hasRoute({ method, url: path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1') });
    };
    const adminTags = ['operator'];
    const adminSecurity = [{ adminToken: [] }];
    app.post(
      '/admin/v1/partners/:partner_id/faults',
      {
        config: { operator: 'partner_manager', docs: { body: ruleBody } },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Add a fault rule for the partner (sandbox): matching calls fail, slow down or lose their connection',
          params: { type: 'object', required: ['partner_id'], properties: { partner_id: { type: 'string', minLength: 1, maxLength: 64 } } },
          response: { 201: rule, 400: error, 403: error },
        },
      },
      async (request, reply) => reply.code(201).send(await faults.add(request.params.partner_id, request.body, isOperation)),
    );
    app.get(
      '/admin/v1/faults',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Live fault rules, of every partner or of one (oldest first, at most `limit`)',
          querystring: {
            type: 'object',
            properties: {
              partner_id: { type: 'string', minLength: 1, maxLength: 64 },
              limit: { type: 'integer', minimum: 1, maximum: MAX_LISTED, default: MAX_LISTED },
            },
          },
          response: { 200: ruleList },
        },
      },
      async (request) => faults.list(request.query.partner_id, request.query.limit),
    );
    app.delete(
      '/admin/v1/faults/:fault_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Remove a fault rule',
          params: faultParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await faults.remove(request.params.fault_id);
        return reply.code(204).send();
      },
    );
    const portal = { portal: true };
    const tags = ['portal'];
    const security = [{ portalSession: [] }];
    app.get(
      '/portal/v1/faults',
      { config: portal, schema: { tags, security, summary: 'Your live fault rules (sandbox)', response: { 200: ruleList } } },
      async (request) => faults.list(portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/faults',
      {
        config: { ...portal, docs: { body: ruleBody } },
        schema: {
          tags,
          security,
          summary: 'Add a fault rule for your calls (sandbox): try your client against errors, latency and dropped connections',
          response: { 201: rule, 400: error, 403: error },
        },
      },
      async (request, reply) => reply.code(201).send(await faults.add(portalOf(request).partnerId, request.body, isOperation)),
    );
    app.delete(
      '/portal/v1/faults/:fault_id',
      {
        config: portal,
        schema: {
          tags,
          security,
          summary: 'Remove one of your fault rules',
          params: faultParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await faults.remove(request.params.fault_id, portalOf(request).partnerId);
        return reply.code(204).send();
      },
    );
  };
}
