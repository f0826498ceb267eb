import type { FastifyInstance } from 'fastify';
import { operatorOf, typedRoutes } from '../platform/http/typed-routes.js';
import { apiError } from '../platform/errors.js';
import type { Team } from './team-service.js';
import type { AuditService } from './audit-service.js';
import {
  accountChangeBody,
  accountParams,
  accountSchema,
  auditQuery,
  auditRecordSchema,
  error,
  inviteBody,
  setupLinkSchema,
  tokenBody,
  tokenSchema,
} from './schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];

/** The bootstrap token's switch (platform/admin-token.ts). */
export interface BootstrapSwitch {
  isOff(): Promise<boolean>;
  turnOff(): Promise<void>;
}

/** Operator accounts, personal tokens, the audit trail and the bootstrap token's switch. */
export function teamAdminRoutes(team: Team, audit: AuditService, bootstrap: BootstrapSwitch) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/operators',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Operator accounts with their roles, sign-in methods and last sign-in',
          response: {
            200: { type: 'object', required: ['operators'], properties: { operators: { type: 'array', items: accountSchema } } },
          },
        },
      },
      async () => ({ operators: await team.list() }),
    );
    app.post(
      '/admin/v1/operators',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Invite a person: an account with a role, and a single-use setup link (shown once) to set a password and second factor',
          body: inviteBody,
          response: {
            201: {
              type: 'object',
              required: ['account', 'setup_url', 'setup_token'],
              properties: { account: accountSchema, ...setupLinkSchema.properties },
            },
            400: error,
            409: error,
          },
        },
      },
      async (request, reply) => reply.code(201).send(await team.invite(request.body)),
    );
    app.patch(
      '/admin/v1/operators/:account_id',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Change an account’s name or role, or disable it (its sessions end and its tokens are revoked) or enable it',
          params: accountParams,
          body: accountChangeBody,
          response: { 200: accountSchema, 404: error, 409: error },
        },
      },
      async (request) => team.change(request.params.account_id, request.body, operatorOf(request)),
    );
    app.post(
      '/admin/v1/operators/:account_id/setup-link',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'A new setup link (a lost password or phone): the old password, second factor and sessions stop working',
          params: accountParams,
          response: { 200: setupLinkSchema, 404: error },
        },
      },
      async (request) => team.resetSetup(request.params.account_id),
    );
    app.get(
      '/admin/v1/operators/:account_id/tokens',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'An account’s personal API tokens (never their secrets)',
          params: accountParams,
          response: {
            200: { type: 'object', required: ['tokens'], properties: { tokens: { type: 'array', items: tokenSchema } } },
            404: error,
          },
        },
      },
      async (request) => {
        await team.get(request.params.account_id);
        return { tokens: await team.tokens(request.params.account_id) };
      },
    );
    app.get(
      '/admin/v1/me/tokens',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Your own personal API tokens',
          response: { 200: { type: 'object', required: ['tokens'], properties: { tokens: { type: 'array', items: tokenSchema } } } },
        },
      },
      async (request) => ({ tokens: request.operator?.accountId ? await team.tokens(request.operator.accountId) : [] }),
    );
    app.post(
      '/admin/v1/me/tokens',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'A personal API token for scripts and the CLI (shown once), with a role no higher than yours and an expiry',
          body: tokenBody,
          response: {
            201: {
              type: 'object',
              required: [...tokenSchema.required, 'token'],
              properties: { ...tokenSchema.properties, token: { type: 'string' } },
            },
            403: error,
            409: error,
          },
        },
      },
      async (request, reply) => reply.code(201).send(await team.issueToken(operatorOf(request), request.body)),
    );
    app.delete(
      '/admin/v1/operator-tokens/:token_id',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Revoke a personal token: your own, or anyone’s as an admin',
          params: { type: 'object', required: ['token_id'], properties: { token_id: { type: 'string', minLength: 1, maxLength: 64 } } },
          response: { 200: tokenSchema, 404: error },
        },
      },
      async (request) => team.revokeToken(request.params.token_id, operatorOf(request)),
    );
    app.get(
      '/admin/v1/audit',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary:
            'The audit trail, newest first: who changed what, when, from where (searchable by person, partner, business, action, time)',
          querystring: auditQuery,
          response: {
            200: {
              type: 'object',
              required: ['records', 'next_cursor'],
              properties: { records: { type: 'array', items: auditRecordSchema }, next_cursor: { type: ['string', 'null'] } },
            },
            400: error,
          },
        },
      },
      async (request) => audit.page(request.query),
    );
    app.get(
      '/admin/v1/audit/export',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'The audit trail as JSON lines, oldest first (for a SIEM): the records of a period, the same filters as the search',
          querystring: {
            ...auditQuery,
            properties: { ...auditQuery.properties, limit: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 100_000 } },
          },
          response: {
            200: {
              description: 'One record per line (JSON lines), oldest first',
              content: { 'application/x-ndjson': { schema: auditRecordSchema } },
            },
            400: error,
          },
        },
      },
      async (request, reply) =>
        reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(audit.exportLines(request.query)),
    );
    app.get(
      '/admin/v1/bootstrap-token',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Whether the bootstrap admin token works',
          response: { 200: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } } },
        },
      },
      async () => ({ enabled: !(await bootstrap.isOff()) }),
    );
    app.delete(
      '/admin/v1/bootstrap-token',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary:
            'Turn the bootstrap admin token off (once an admin account can sign in); `pbs admin-token reset` on the server makes a new one',
          response: { 204: { type: 'null' }, 409: error },
        },
      },
      async (_request, reply) => {
        if (!(await team.hasUsableAdmin()))
          throw apiError(
            'CONFLICT',
            'No admin account can sign in yet: invite one and let them finish their setup first, or you would lock everyone out.',
          );
        await bootstrap.turnOff();
        return reply.code(204).send();
      },
    );
  };
}
