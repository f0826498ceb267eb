import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PartnerRouteConfig } from '../platform/auth/principal.js';
import { afterwards } from '../platform/at-once.js';
import { apiError } from '../platform/errors.js';
import { sendJson } from '../platform/http/send-json.js';
import { partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import { list } from '../platform/query.js';
import { isRecord } from '../platform/values.js';
import type { JobReceipt } from './advertising-receipts.js';
import type { AdvertisingServices } from './module.js';
import { createQueryDocs, editQueryDocs, jobId, programParams, programView, receipt } from './schemas.js';

const tags = ['advertising'];
const security = [{ basicAuth: [] }];
const partner = (business: PartnerRouteConfig['business']): { partner: PartnerRouteConfig } => ({
  partner: { interface: 'advertising', scheme: 'basic', business },
});
const ownProgram = { unscoped: "acts on the caller's own program; another partner's answers like an unknown id" };
const ownJob = { unscoped: "reads the caller's own job; another partner's answers like an unknown id" };
/** Parameters come in the query string (spec); a form body is read too, the query string winning. */
const FORM = ['application/x-www-form-urlencoded'];

function parametersOf(request: FastifyRequest): Record<string, unknown> {
  return { ...(isRecord(request.body) ? request.body : {}), ...(isRecord(request.query) ? request.query : {}) };
}

const MAX_LISTED_IDS = 200;

/** The path parameter of the listings by business: up to 200 comma-separated ids. */
const businessIdsParams = {
  type: 'object',
  required: ['business_ids'],
  properties: { business_ids: { type: 'string', maxLength: MAX_LISTED_IDS * 201 } },
} as const;

/**
 * The advertising partner API (spec part 2; docs/contract/advertising.md §8): create, edit and end
 * programs through jobs, poll a job's receipt, pause and resume CPC programs, list programs.
 */
export function advertisingRoutes({ jobs, status, listings }: Pick<AdvertisingServices, 'jobs' | 'status' | 'listings'>) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v1/programs/list/:business_ids',
      {
        config: partner({ paramList: 'business_ids', max: MAX_LISTED_IDS }),
        schema: {
          tags,
          security,
          summary: "The caller's programs of up to 200 businesses (comma-separated ids), paged per business",
          params: businessIdsParams,
          querystring: {
            type: 'object',
            properties: {
              start: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
              limit: { type: 'integer', minimum: 0, maximum: 40, default: 20 },
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['businesses'],
              properties: {
                businesses: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      yelp_business_id: { type: 'string' },
                      destination_yelp_business_id: { type: ['string', 'null'] },
                      advertiser_status: { type: 'string', enum: ['CURRENT_ADVERTISER', 'PAST_ADVERTISER', 'NON_ADVERTISER'] },
                      partner_business_id: { type: ['string', 'null'] },
                      total: { type: 'integer' },
                      programs: { type: 'array', items: programView },
                    },
                  },
                },
              },
            },
          },
        },
      },
      async (request) => listings.byBusiness(principalOf(request), list(request.params.business_ids), request.query),
    );
    app.get(
      '/v1/business_migration_info/:business_ids',
      {
        config: partner({ paramList: 'business_ids', max: MAX_LISTED_IDS }),
        schema: {
          tags,
          security,
          summary: 'Whether each of up to 200 businesses (comma-separated ids) was moved or merged into another, and which',
          params: businessIdsParams,
          response: {
            200: {
              type: 'object',
              required: ['businesses'],
              properties: {
                businesses: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['yelp_business_id', 'destination_yelp_business_id', 'is_migrated'],
                    properties: {
                      yelp_business_id: { type: 'string' },
                      destination_yelp_business_id: {
                        type: ['string', 'null'],
                        description: 'the business it became; null when not moved',
                      },
                      is_migrated: { type: 'boolean' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      async (request) => listings.migrationInfo(list(request.params.business_ids)),
    );
    app.get(
      '/v1/programs/info/:program_ids',
      {
        config: partner(ownProgram),
        schema: {
          tags,
          security,
          summary: "The caller's programs by id (up to 200, comma-separated); any other id answers 404",
          params: { type: 'object', required: ['program_ids'], properties: { program_ids: { type: 'string', maxLength: 200 * 65 } } },
          querystring: { type: 'object', properties: { start: { type: 'integer', minimum: 0, maximum: MAX_LISTED_IDS, default: 0 } } },
          response: { 200: { type: 'object', required: ['programs'], properties: { programs: { type: 'array', items: programView } } } },
        },
      },
      async (request) => {
        const ids = list(request.params.program_ids);
        if (ids.length === 0 || ids.length > MAX_LISTED_IDS)
          throw apiError('INVALID_REQUEST', `program_ids must list 1 to ${MAX_LISTED_IDS} ids`, { field: 'program_ids' });
        return listings.byId(principalOf(request), ids, request.query.start);
      },
    );
    app.get(
      '/programs/v1',
      {
        config: partner({ unscoped: "lists the caller's own programs of every business" }),
        schema: {
          tags,
          security,
          summary: "Every program of the caller's account, by status (CURRENT by default)",
          querystring: {
            type: 'object',
            properties: {
              offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
              limit: { type: 'integer', minimum: 1, maximum: 40, default: 20 },
              program_status: { type: 'string', enum: ['PAST', 'PAUSED', 'CURRENT', 'FUTURE', 'ALL'], default: 'CURRENT' },
            },
          },
          response: {
            200: {
              type: 'object',
              properties: {
                program_status: { type: 'string' },
                total: { type: 'integer' },
                limit: { type: 'integer' },
                offset: { type: 'integer' },
                payment_programs: {
                  type: 'array',
                  items: {
                    ...programView,
                    properties: {
                      ...programView.properties,
                      businesses: { type: 'array', items: { type: 'object', additionalProperties: true } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      async (request) => listings.ofAccount(principalOf(request), request.query),
    );
    app.post(
      '/v1/reseller/program/create',
      {
        config: { ...partner({ query: 'business_id' }), docs: { querystring: createQueryDocs } },
        schema: {
          tags,
          security,
          summary: 'Create an advertising program (asynchronous: answers a job id to poll)',
          consumes: FORM,
          querystring: { type: 'object', additionalProperties: true },
          response: { 200: jobId, 400: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => jobs.create(principalOf(request), parametersOf(request), partnerWriteOf(request)),
    );
    app.post(
      '/v1/reseller/program/:program_id/edit',
      {
        config: { ...partner(ownProgram), docs: { querystring: editQueryDocs } },
        schema: {
          tags,
          security,
          summary: 'Change a program (asynchronous: answers a job id to poll)',
          params: programParams,
          consumes: FORM,
          querystring: { type: 'object', additionalProperties: true },
          response: { 200: jobId, 400: { $ref: 'ErrorResponse#' }, 404: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => jobs.edit(principalOf(request), request.params.program_id, parametersOf(request), partnerWriteOf(request)),
    );
    for (const [action, paused] of [
      ['pause', true],
      ['resume', false],
    ] as const) {
      app.post(
        `/program/:program_id/${action}/v1`,
        {
          config: partner(ownProgram),
          schema: {
            tags,
            security,
            summary: `${paused ? 'Pause' : 'Resume'} a running CPC program (202, empty body)`,
            params: programParams,
            response: {
              202: { description: 'Accepted: empty body', type: 'null' },
              400: { $ref: 'ErrorResponse#' },
              404: { $ref: 'ErrorResponse#' },
              409: { $ref: 'ErrorResponse#' },
            },
          },
        },
        async (request, reply) => {
          await jobs.setPaused(principalOf(request), request.params.program_id, paused, partnerWriteOf(request));
          return reply.code(202).send();
        },
      );
    }
    app.post(
      '/v1/reseller/program/:program_id/end',
      {
        config: partner(ownProgram),
        schema: {
          tags,
          security,
          summary: 'End a program now (asynchronous: answers a job id to poll)',
          params: programParams,
          response: { 200: jobId, 404: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => jobs.end(principalOf(request), request.params.program_id, partnerWriteOf(request)),
    );
    app.get(
      '/v1/reseller/status/:job_id',
      {
        config: partner(ownJob),
        schema: {
          tags,
          security,
          summary: "A job's receipt: 202 while PROCESSING (ask again later), 200 once COMPLETED",
          params: { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string', maxLength: 64 } } },
          response: { 200: receipt, 202: receipt, 404: { $ref: 'ErrorResponse#' } },
        },
      },
      // Not async: a kept receipt (a poll's nearly always is) answers at once, with no promise.
      (request, reply) => {
        const receipt = status.read(principalOf(request).partnerId, request.params.job_id);
        return afterwards(receipt, (r) => answerReceipt(reply, r));
      },
    );
  };
}

/** Sends a receipt (JSON bytes already: sent as they are; the schema documents them), with Retry-After while PROCESSING. */
function answerReceipt(reply: FastifyReply, { statusCode, body }: JobReceipt) {
  if (statusCode === 202) reply.header('retry-after', '1');
  return sendJson(reply.code(statusCode), body);
}
