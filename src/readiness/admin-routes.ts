import type { FastifyInstance } from 'fastify';
import { operatorOf, typedRoutes } from '../platform/http/typed-routes.js';
import type { Readiness } from './readiness-service.js';
import type { Drills } from './drill-service.js';
import {
  approvalBody,
  drillBody,
  drillListSchema,
  drillParams,
  drillSchema,
  partnerParams,
  rankingQuery,
  rankingSchema,
  readinessReportSchema,
  reportQuery,
  summariesQuery,
  summariesSchema,
} from './schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const error = { $ref: 'ErrorResponse#' } as const;
const approvalSchema = readinessReportSchema.properties.approval;

/** The operator's side of launch readiness (docs/readiness.md): a partner's report, a fresh start, the approval for launch. */
export function readinessAdminRoutes(readiness: Readiness, drills: Drills, wallClock: () => number) {
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
    app.get(
      '/admin/v1/readiness',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Partners’ readiness scores and approvals at once (the console’s partner list)',
          querystring: summariesQuery,
          response: { 200: summariesSchema, 404: error },
        },
      },
      async (request) => readiness.summaries(request.query.partner_ids.split(',').filter(Boolean)),
    );
    app.get(
      '/admin/v1/readiness/ranking',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Every partner, most ready first (the console’s “most ready first”): a page of summaries',
          querystring: rankingQuery,
          response: { 200: rankingSchema },
        },
      },
      async (request) => readiness.ranking(request.query.limit, request.query.offset),
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
    app.post(
      '/admin/v1/partners/:partner_id/readiness/drills',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Sandbox: start a drill against the partner’s client (its failures act on that partner only)',
          params: partnerParams,
          body: drillBody,
          response: { 201: drillSchema, 403: error, 404: error, 409: error },
        },
      },
      async (request, reply) => {
        const partnerId = request.params.partner_id;
        await readiness.describe(partnerId);
        return reply.code(201).send(await drills.start(partnerId, request.body, operatorOf(request).name));
      },
    );
    app.get(
      '/admin/v1/partners/:partner_id/readiness/drills',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'The partner’s drills, newest first, each graded',
          params: partnerParams,
          response: { 200: drillListSchema, 404: error },
        },
      },
      async (request) => {
        await readiness.describe(request.params.partner_id);
        return drills.list(request.params.partner_id);
      },
    );
    app.get(
      '/admin/v1/readiness/drills/:drill_id',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'One drill, graded now', params: drillParams, response: { 200: drillSchema, 404: error } },
      },
      async (request) => drills.get(request.params.drill_id),
    );
    app.post(
      '/admin/v1/readiness/drills/:drill_id/stop',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'End a running drill now, graded as it stands',
          params: drillParams,
          response: { 200: drillSchema, 404: error },
        },
      },
      async (request) => drills.stop(request.params.drill_id),
    );
  };
}
