import type { FastifyInstance } from 'fastify';
import { operatorOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { Readiness } from './readiness-service.js';
import { approvalBody, partnerParams, readinessReportSchema, reportQuery } from './schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const error = { $ref: 'ErrorResponse#' } as const;
const approvalSchema = readinessReportSchema.properties.approval;

/** The operator's side of launch readiness (docs/readiness.md): a partner's report, a fresh start, the approval for launch. */
export function readinessAdminRoutes(readiness: Readiness, wallClock: () => number) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/partners/:partner_id/readiness',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'The partner’s launch readiness: milestones per interface from its own traffic (JSON, or Markdown with format=markdown)',
          params: partnerParams,
          querystring: reportQuery,
          response: { 200: readinessReportSchema, 404: error },
        },
      },
      async (request, reply) =>
        request.query.format === 'markdown'
          ? reply.type('text/markdown; charset=utf-8').send(await readiness.markdown(request.params.partner_id))
          : readiness.report(request.params.partner_id),
    );
    app.post(
      '/admin/v1/partners/:partner_id/readiness/reset',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Start the partner’s readiness over: only calls from now on are judged',
          params: partnerParams,
          response: { 200: readinessReportSchema, 404: error },
        },
      },
      async (request) => readiness.reset(request.params.partner_id),
    );
    app.put(
      '/admin/v1/partners/:partner_id/launch-approval',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Approve the partner for launch (who and when are kept); production credentials then need no override',
          params: partnerParams,
          body: approvalBody,
          response: { 200: approvalSchema, 404: error },
        },
      },
      async (request) => readiness.approve(request.params.partner_id, operatorOf(request).name, request.body?.note ?? '', wallClock()),
    );
    app.delete(
      '/admin/v1/partners/:partner_id/launch-approval',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Withdraw the partner’s approval for launch',
          params: partnerParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await readiness.withdraw(request.params.partner_id);
        return reply.code(204).send();
      },
    );
  };
}
