import type { FastifyInstance } from 'fastify';
import { portalOf } from '../platform/http/portal-session.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { Readiness } from './readiness-service.js';
import { readinessReportSchema, reportQuery } from './schemas.js';

const tags = ['portal'];
const security = [{ portalSession: [] }];
const config = { portal: true };

/** The partner's own launch readiness in its portal (docs/readiness.md). */
export function readinessPortalRoutes(readiness: Readiness) {
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
  };
}
