import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { Readiness } from './readiness-service.js';
import type { Drills } from './drill-service.js';
import { drillBody, drillListSchema, drillParams, drillSchema, readinessReportSchema, reportQuery } from './schemas.js';

const tags = ['portal'];
const security = [{ portalSession: [] }];
const config = { portal: true };
const error = { $ref: 'ErrorResponse#' } as const;

/** The partner's own launch readiness in its portal (docs/readiness.md). */
export function readinessPortalRoutes(readiness: Readiness, drills: Drills) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/portal/v1/readiness',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Your launch readiness: milestones per interface from your own traffic (JSON, or Markdown with format=markdown)',
          querystring: reportQuery,
          response: { 200: readinessReportSchema },
        },
      },
      async (request, reply) =>
        request.query.format === 'markdown'
          ? reply.type('text/markdown; charset=utf-8').send(await readiness.markdown(portalOf(request).partnerId))
          : readiness.report(portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/readiness/reset',
      {
        config,
        schema: { tags, security, summary: 'Start over: only calls from now on are judged', response: { 200: readinessReportSchema } },
      },
      async (request) => readiness.reset(portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/readiness/drills',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Sandbox: start a drill against your client (its failures act on your calls only)',
          body: drillBody,
          response: { 201: drillSchema, 403: error, 409: error },
        },
      },
      async (request, reply) => reply.code(201).send(await drills.start(portalOf(request).partnerId, request.body, 'partner')),
    );
    app.get(
      '/portal/v1/readiness/drills',
      { config, schema: { tags, security, summary: 'Your drills, newest first, each graded', response: { 200: drillListSchema } } },
      async (request) => drills.list(portalOf(request).partnerId),
    );
    app.get(
      '/portal/v1/readiness/drills/:drill_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'One of your drills, graded now',
          params: drillParams,
          response: { 200: drillSchema, 404: error },
        },
      },
      async (request) => drills.get(request.params.drill_id, portalOf(request).partnerId),
    );
    app.post(
      '/portal/v1/readiness/drills/:drill_id/stop',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'End one of your running drills now',
          params: drillParams,
          response: { 200: drillSchema, 404: error },
        },
      },
      async (request) => drills.stop(request.params.drill_id, portalOf(request).partnerId),
    );
  };
}
