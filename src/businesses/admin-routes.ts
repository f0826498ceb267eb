import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { isRecord } from '../platform/values.js';
import { businessInputSchema } from './business-record.js';
import type { BusinessService } from './business-service.js';
import { importSource, streamJsonLines } from '../platform/http/streamed-body.js';
import { MAX_IMPORT_BYTES } from '../platform/json-lines.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { publicBusinessProperties } from './public-schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const idParam = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

/** A business as the operator loaded it: the public record with its timezone, hours, specialties and operator-only fields. */
const businessSchema = {
  type: 'object',
  required: ['id', 'alias', 'name', 'location', 'coordinates', 'categories', 'timezone', 'hours', 'is_claimed'],
  properties: {
    ...publicBusinessProperties,
    timezone: { type: 'string' },
    hours: { type: 'array', items: { type: 'object', additionalProperties: true } },
    specialties: { type: 'string' },
    is_claimed: { type: 'boolean' },
    migrated_to: { type: 'string', description: 'the business this one was moved or merged into' },
  },
} as const;
const businessListSchema = {
  type: 'object',
  required: ['total', 'limit', 'offset', 'businesses'],
  properties: {
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    businesses: { type: 'array', items: businessSchema },
  },
} as const;
const importedSchema = {
  type: 'object',
  required: ['imported', 'created', 'updated', 'not_searchable'],
  properties: {
    imported: { type: 'integer' },
    created: { type: 'integer' },
    updated: { type: 'integer' },
    not_searchable: {
      type: 'object',
      description: 'Imported businesses search will not list; each reason counted (a business may have several)',
      required: ['count', 'no_reviews', 'closed', 'no_coordinates'],
      properties: {
        count: { type: 'integer' },
        no_reviews: { type: 'integer', description: 'review_count 0: search lists reviewed businesses only, as the original' },
        closed: { type: 'integer' },
        no_coordinates: { type: 'integer' },
      },
    },
    notice: { type: 'string', description: 'Present when some will not be listed: how many and why' },
  },
} as const;
const error = { $ref: 'ErrorResponse#' } as const;

export function businessAdminRoutes(service: BusinessService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.addSchema(businessInputSchema);
    streamJsonLines(app, ['text/csv']);

    app.get(
      '/admin/v1/businesses',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'List businesses',
          querystring: pagingQuerySchema(
            { defaultLimit: 50, maxLimit: 1000 },
            {
              city: { type: 'string', maxLength: 200 },
              q: { type: 'string', minLength: 1, maxLength: 200, description: 'The start of a name (any case), or an id or alias exactly' },
              ids: { type: 'string', maxLength: 7000, description: 'These businesses only: a comma list of up to 100 ids' },
            },
          ),
          response: { 200: businessListSchema },
        },
      },
      async (request) => {
        const q = request.query;
        return service.list(q);
      },
    );

    app.get(
      '/admin/v1/businesses/:business_id',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Show a business (id or alias)',
          params: idParam,
          response: { 200: businessSchema, 404: error },
        },
      },
      async (request) => service.get(request.params.business_id),
    );

    app.post(
      '/admin/v1/businesses',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Create or replace a business',
          body: { $ref: 'BusinessInput#' },
          response: { 200: businessSchema, 201: businessSchema, 400: error },
        },
      },
      async (request, reply) => {
        const { business, created } = await service.upsert(request.body);
        return reply.code(created ? 201 : 200).send(business);
      },
    );

    app.put(
      '/admin/v1/businesses/:business_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Create or replace the business with this id',
          params: idParam,
          body: { $ref: 'BusinessInput#' },
          response: { 200: businessSchema, 201: businessSchema, 400: error },
        },
      },
      async (request, reply) => {
        const body = { ...(isRecord(request.body) ? request.body : {}), id: request.params.business_id };
        const { business, created } = await service.upsert(body);
        return reply.code(created ? 201 : 200).send(business);
      },
    );

    app.post(
      '/admin/v1/businesses/import',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Bulk import businesses from JSON lines or CSV (streamed; all or nothing)',
          description:
            'Body: one business JSON object per line (Content-Type application/x-ndjson), or CSV with a header row naming the columns (text/csv); up to 1,000,000 records. The body is read as it arrives and never held whole; the import applies only when every record is good. The answer counts the businesses search will not list, and why (docs/catalogue.md "Imports").',
          response: { 200: importedSchema, 400: error },
        },
      },
      async (request) => {
        const csv = /^text\/csv\b/i.test(request.headers['content-type'] ?? '');
        return importSource(request.body, MAX_IMPORT_BYTES, (source) =>
          csv ? service.importCsv(source) : service.importJsonLines(source),
        );
      },
    );
  };
}
