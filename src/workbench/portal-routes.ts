import type { FastifyInstance } from 'fastify';
import { apiError } from '../platform/errors.js';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { CLEARED_COOKIE, type Portal } from './portal.js';
import { secureCookie } from '../platform/http/same-origin.js';
import type { RequestLog } from './request-log.js';
import { errorGroupsSchema, requestLogEntrySchema, requestLogFilter, requestLogListSchema, requestLogQuery } from './routes.js';

const tags = ['portal'];
const security = [{ portalSession: [] }];
const config = { portal: true };
const adminSecurity = [{ adminToken: [] }];
const partnerParams = {
  type: 'object',
  required: ['partner_id'],
  properties: { partner_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const { partner_id: _partner, ...ownQuery } = requestLogQuery.properties;
const portalQuery = { ...requestLogQuery, properties: ownQuery };
const error = { $ref: 'ErrorResponse#' } as const;

/**
 * The partner portal (docs/request-log.md "Portal"): the operator issues a link, the partner's
 * browser exchanges it for a session, and the portal's API answers that partner's own request
 * log. Its pages (/portal, console/src/portal/) call this API with the session's cookie.
 */
export function portalRoutes(portal: Portal, log: RequestLog, publicUrl: string) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/admin/v1/partners/:partner_id/portal-links',
      {
        config: { operator: 'support' },
        schema: {
          tags: ['operator'],
          security: adminSecurity,
          summary: 'A single-use portal sign-in link for the partner (15 minutes)',
          params: partnerParams,
          response: {
            201: {
              type: 'object',
              required: ['url', 'expires_at'],
              properties: { url: { type: 'string' }, expires_at: { type: 'string' } },
            },
            404: error,
          },
        },
      },
      async (request, reply) => reply.code(201).send(await portal.issueLink(request.params.partner_id)),
    );
    app.delete(
      '/admin/v1/partners/:partner_id/portal-sessions',
      {
        config: { operator: 'support' },
        schema: {
          tags: ['operator'],
          security: adminSecurity,
          summary: 'End every portal session of the partner (rotating or revoking one of its credentials does too)',
          params: partnerParams,
          response: { 200: { type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer' } } }, 404: error },
        },
      },
      async (request) => portal.revokeAll(request.params.partner_id),
    );
    app.post(
      '/portal/sign-in',
      {
        schema: {
          tags,
          security: [{ bearerAuth: [] }],
          summary: 'Sandbox only: a portal session from the partner’s own API key (Authorization: Bearer)',
          response: {
            200: { type: 'object', required: ['partner_id'], properties: { partner_id: { type: 'string' } } },
            401: error,
            404: error,
          },
        },
      },
      async (request, reply) => {
        const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
        if (!match) throw apiError('TOKEN_MISSING', 'Send the API key as Authorization: Bearer.');
        const session = await portal.signInWithApiKey(match[1]);
        reply.header('set-cookie', portal.cookieFor(session.token, secureCookie(request, publicUrl))).header('cache-control', 'no-store');
        return { partner_id: session.partnerId };
      },
    );
    app.get(
      '/portal/v1/me',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Who the session belongs to, the interfaces enabled for it, and until when',
          response: {
            200: {
              type: 'object',
              required: ['partner_id', 'partner_name', 'interfaces', 'session_expires_at'],
              properties: {
                partner_id: { type: 'string' },
                partner_name: { type: 'string' },
                interfaces: { type: 'array', items: { type: 'string' } },
                session_expires_at: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
      async (request) => portal.me(portalOf(request)),
    );
    app.post(
      '/portal/v1/sign-out',
      { config, schema: { tags, security, summary: 'End this session', response: { 204: { type: 'null' } } } },
      async (request, reply) => {
        await portal.signOut(portalOf(request));
        return reply.code(204).header('set-cookie', CLEARED_COOKIE).send();
      },
    );
    app.get(
      '/portal/v1/request-log',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Your requests as pbs received and answered them, newest first (filters as the operator’s listing)',
          querystring: portalQuery,
          response: { 200: requestLogListSchema },
        },
      },
      async (request) => ({
        entries: await log.list({ ...requestLogFilter(request.query), partnerId: portalOf(request).partnerId }),
        dropped: log.dropped,
      }),
    );
    app.get(
      '/portal/v1/request-log/errors',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Your errors over a period, grouped by code and operation, each with a hint',
          querystring: { type: 'object', additionalProperties: false, properties: { from: ownQuery.from, to: ownQuery.to } },
          response: { 200: errorGroupsSchema },
        },
      },
      async (request) => {
        const { from, to } = requestLogFilter(request.query);
        return { errors: await log.errorGroups({ partnerId: portalOf(request).partnerId, from, to }) };
      },
    );
    app.get(
      '/portal/v1/request-log/:entry_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'One of your requests whole (another partner’s answers 404)',
          params: {
            type: 'object',
            required: ['entry_id'],
            properties: { entry_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
          },
          response: { 200: requestLogEntrySchema, 404: error },
        },
      },
      async (request) => {
        const found = await log.entry(request.params.entry_id, portalOf(request).partnerId);
        if (!found) throw apiError('NOT_FOUND', `No request log entry ${request.params.entry_id}`);
        return found;
      },
    );
  };
}
