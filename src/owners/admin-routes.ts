import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { pagingQuerySchema } from '../platform/paging.js';
import { PASSWORD_LENGTH } from '../platform/passwords.js';
import type { AuthorizationRevocation } from './authorization-revocation.js';
import { EMAIL_PATTERN, MAX_BUSINESSES_PER_USER_REQUEST, type BusinessUserService } from './owner-service.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const error = { $ref: 'ErrorResponse#' } as const;

const userParams = { type: 'object', required: ['user_id'], properties: { user_id: { type: 'string', maxLength: 64 } } } as const;
const linkParams = {
  type: 'object',
  required: ['user_id', 'business_id'],
  properties: { user_id: { type: 'string', maxLength: 64 }, business_id: { type: 'string' } },
} as const;
const name = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const;
const email = { type: 'string', maxLength: 254, pattern: EMAIL_PATTERN } as const;

const businessUserSchema = {
  type: 'object',
  required: ['id', 'name', 'email', 'business_ids', 'created_at', 'has_password'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string', description: 'Lower-cased: one business user per address' },
    business_ids: { type: 'array', items: { type: 'string' }, description: 'The businesses this user manages' },
    created_at: { type: 'string' },
    has_password: { type: 'boolean', description: 'Whether they can sign in outside the sandbox (a password is set)' },
  },
} as const;

/** The operator's business users (docs/owners.md): who manages which businesses. */
export function businessUserAdminRoutes(service: BusinessUserService, revocation: AuthorizationRevocation) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/admin/v1/business-users',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Add a business user (an owner or manager) and the businesses they manage',
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'email'],
            properties: {
              id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
              name,
              email,
              business_ids: { type: 'array', maxItems: MAX_BUSINESSES_PER_USER_REQUEST, items: { type: 'string', maxLength: 200 } },
            },
          },
          response: { 201: businessUserSchema, 400: error, 404: error, 409: error },
        },
      },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/admin/v1/business-users',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Business users by name; with business_id, those who manage that business',
          querystring: pagingQuerySchema({ defaultLimit: 50, maxLimit: 500 }, { business_id: { type: 'string' } }),
          response: {
            200: {
              type: 'object',
              required: ['total', 'limit', 'offset', 'business_users'],
              properties: {
                total: { type: 'integer' },
                limit: { type: 'integer' },
                offset: { type: 'integer' },
                business_users: { type: 'array', items: businessUserSchema },
              },
            },
            400: error,
            404: error,
          },
        },
      },
      async (request) => {
        const q = request.query;
        return service.list({ limit: q.limit ?? 50, offset: q.offset ?? 0 }, typeof q.business_id === 'string' ? q.business_id : undefined);
      },
    );
    app.post(
      '/admin/v1/business-users/import',
      {
        config: { operator: 'admin' },
        bodyLimit: 16 * 1024 * 1024,
        schema: {
          tags,
          security,
          summary: 'Import business users as JSON lines ({"name", "email", "business_ids", "id"?}), all or nothing',
          description: 'A line whose e-mail is already a business user renames them and adds the businesses to theirs.',
          consumes: ['application/x-ndjson', 'application/jsonl', 'text/plain'],
          response: {
            200: {
              type: 'object',
              required: ['created', 'updated'],
              properties: { created: { type: 'integer' }, updated: { type: 'integer' } },
            },
            400: error,
            404: error,
            409: error,
            413: error,
          },
        },
      },
      async (request) => service.importJsonLines(typeof request.body === 'string' ? request.body : ''),
    );
    app.get(
      '/admin/v1/business-users/:user_id',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'A business user', params: userParams, response: { 200: businessUserSchema, 404: error } },
      },
      async (request) => service.get(request.params.user_id),
    );
    app.patch(
      '/admin/v1/business-users/:user_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: "Change a business user's name or e-mail",
          params: userParams,
          body: { type: 'object', additionalProperties: false, properties: { name, email } },
          response: { 200: businessUserSchema, 400: error, 404: error, 409: error },
        },
      },
      async (request) => service.update(request.params.user_id, request.body),
    );
    app.delete(
      '/admin/v1/business-users/:user_id',
      {
        config: { operator: 'partner_manager' },
        schema: { tags, security, summary: 'Remove a business user', params: userParams, response: { 204: { type: 'null' }, 404: error } },
      },
      async (request, reply) => {
        await service.remove(request.params.user_id);
        return reply.code(204).send();
      },
    );
    app.put(
      '/admin/v1/business-users/:user_id/businesses/:business_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Let a business user manage a business',
          params: linkParams,
          response: { 200: businessUserSchema, 404: error },
        },
      },
      async (request) => service.link(request.params.user_id, request.params.business_id),
    );
    app.delete(
      '/admin/v1/business-users/:user_id/businesses/:business_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Stop a business user managing a business',
          params: linkParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await service.unlink(request.params.user_id, request.params.business_id);
        return reply.code(204).send();
      },
    );
    app.put(
      '/admin/v1/business-users/:user_id/password',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Set the password a business user signs in with to authorize partners (outside the sandbox)',
          description: 'Kept as an Argon2id hash; never shown again. A business user without one cannot sign in in production.',
          params: userParams,
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['password'],
            properties: { password: { type: 'string', minLength: PASSWORD_LENGTH.min, maxLength: PASSWORD_LENGTH.max } },
          },
          response: { 204: { type: 'null' }, 400: error, 404: error },
        },
      },
      async (request, reply) => {
        await service.setPassword(request.params.user_id, request.body.password);
        return reply.code(204).send();
      },
    );
    app.delete(
      '/admin/v1/business-users/:user_id/password',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Remove a business user’s password (they cannot sign in until one is set)',
          params: userParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        await service.setPassword(request.params.user_id, null);
        return reply.code(204).send();
      },
    );
    app.get(
      '/admin/v1/business-users/:user_id/authorizations',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'The partners a business user authorized (the newest 100), live or revoked',
          params: userParams,
          response: {
            200: {
              type: 'object',
              required: ['authorizations'],
              properties: {
                authorizations: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'partner_id', 'scopes', 'authorized_at', 'revoked_at'],
                    properties: {
                      id: { type: 'string' },
                      partner_id: { type: 'string' },
                      scopes: { type: 'array', items: { type: 'string' } },
                      authorized_at: { type: 'string' },
                      revoked_at: { type: ['string', 'null'] },
                    },
                  },
                },
              },
            },
            404: error,
          },
        },
      },
      async (request) => revocation.authorizationsOf(request.params.user_id),
    );
    app.delete(
      '/admin/v1/business-users/:user_id/authorizations',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'End every authorization a business user gave: their tokens stop working at once',
          params: userParams,
          response: { 200: { type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer' } } }, 404: error },
        },
      },
      async (request) => revocation.revokeAllOf(request.params.user_id),
    );
  };
}
