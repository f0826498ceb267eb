import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { partnerInterfaces } from '../platform/auth/principal.js';
import { apiError } from '../platform/errors.js';
import { pagingQuerySchema } from '../platform/paging.js';
import type { CredentialService } from './credential-service.js';
import type { PartnerService } from './partner-service.js';
import {
  credentialSchema,
  issuedCredentialSchema,
  linkListSchema,
  linkSchema,
  MAX_GRACE_SECONDS,
  partnerListSchema,
  partnerSchema,
} from './schemas.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];

const partnerParams = {
  type: 'object',
  required: ['partner_id'],
  properties: { partner_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const paging = pagingQuerySchema({ defaultLimit: 50, maxLimit: 1000 });
const error = { $ref: 'ErrorResponse#' } as const;
/** A partner's own limits: bounded, so no number reaches the database that it cannot hold. */
const nullableLimit = { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000_000 } as const;

/** Operator API for partners, their interface grants, credentials and business links. */
export function partnerAdminRoutes(partners: PartnerService, credentials: CredentialService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.post(
      '/admin/v1/partners',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Create a partner (every interface disabled unless listed)',
          response: { 201: partnerSchema, 400: error },
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 200 },
              interfaces: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...partnerInterfaces] } },
            },
          },
        },
      },
      async (request, reply) => reply.code(201).send(await partners.create(request.body)),
    );

    app.get(
      '/admin/v1/partners',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'List partners', querystring: paging, response: { 200: partnerListSchema } },
      },
      async (request) => {
        const q = request.query;
        return partners.list(q.limit, q.offset);
      },
    );

    app.get(
      '/admin/v1/partners/:partner_id',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'Show a partner', params: partnerParams, response: { 200: partnerSchema, 404: error } },
      },
      async (request) => partners.get(request.params.partner_id),
    );

    for (const [action, status] of [
      ['disable', 'disabled'],
      ['enable', 'active'],
    ] as const) {
      app.post(
        `/admin/v1/partners/:partner_id/${action}`,
        {
          config: { operator: 'partner_manager' },
          schema: {
            tags,
            security,
            summary: `${action === 'disable' ? 'Disable' : 'Re-enable'} a partner`,
            params: partnerParams,
            response: { 200: partnerSchema, 404: error },
          },
        },
        async (request) => partners.setStatus(request.params.partner_id, status),
      );
    }

    app.put(
      '/admin/v1/partners/:partner_id/interfaces/:interface',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Enable or disable one interface for a partner, and set its rate limits',
          params: {
            type: 'object',
            required: ['partner_id', 'interface'],
            properties: { partner_id: { type: 'string' }, interface: { type: 'string', enum: [...partnerInterfaces] } },
          },
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { enabled: { type: 'boolean' }, per_second: nullableLimit, per_day: nullableLimit },
          },
          response: { 200: partnerSchema, 400: error, 404: error },
        },
      },
      async (request) => {
        const p = request.params;
        return partners.setInterface(p.partner_id, p.interface, request.body ?? {});
      },
    );

    app.post(
      '/admin/v1/partners/:partner_id/credentials',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Issue a credential; the secret is shown only in this response',
          response: { 201: issuedCredentialSchema, 400: error, 404: error, 409: error },
          params: partnerParams,
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['kind'],
            properties: {
              kind: { type: 'string', enum: ['api_key', 'basic', 'oauth_client'] },
              label: { type: 'string', maxLength: 200 },
              username: { type: 'string', minLength: 3, maxLength: 100, description: 'basic only; generated when absent' },
              override_readiness: {
                type: 'boolean',
                description: 'Production: issue although the partner is not approved for launch (recorded in the audit trail)',
              },
            },
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        return reply.code(201).send(await credentials.issue(request.params.partner_id, body));
      },
    );

    app.get(
      '/admin/v1/partners/:partner_id/credentials',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: "List a partner's credentials (never their secrets)",
          params: partnerParams,
          response: {
            200: { type: 'object', required: ['credentials'], properties: { credentials: { type: 'array', items: credentialSchema } } },
            404: error,
          },
        },
      },
      async (request) => ({ credentials: await credentials.list(request.params.partner_id) }),
    );

    const credentialParams = {
      type: 'object',
      required: ['credential_id'],
      properties: { credential_id: { type: 'string', minLength: 1, maxLength: 64 } },
    } as const;

    app.post(
      '/admin/v1/credentials/:credential_id/rotate',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Rotate a credential; the old secret may stay valid for a grace period',
          response: { 200: issuedCredentialSchema, 404: error },
          params: credentialParams,
          body: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: { grace_seconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS } },
          },
        },
      },
      async (request) => {
        return credentials.rotate(request.params.credential_id, request.body?.grace_seconds ?? 0);
      },
    );

    app.delete(
      '/admin/v1/credentials/:credential_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Revoke a credential (and its access tokens)',
          params: credentialParams,
          response: { 200: credentialSchema, 404: error },
        },
      },
      async (request) => credentials.revoke(request.params.credential_id),
    );

    app.get(
      '/admin/v1/partners/:partner_id/businesses',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Businesses the partner may act for',
          params: partnerParams,
          querystring: paging,
          response: { 200: linkListSchema, 404: error },
        },
      },
      async (request) => {
        const q = request.query;
        return partners.listLinks(request.params.partner_id, q.limit, q.offset);
      },
    );

    const linkParams = {
      type: 'object',
      required: ['partner_id', 'business_id'],
      properties: { partner_id: { type: 'string' }, business_id: { type: 'string', minLength: 1, maxLength: 200 } },
    } as const;

    app.put(
      '/admin/v1/partners/:partner_id/businesses/:business_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Link a business to a partner',
          response: { 200: linkSchema, 404: error },
          params: linkParams,
          body: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: { comment: { type: ['string', 'null'], maxLength: 1000 } },
          },
        },
      },
      async (request) => {
        const p = request.params;
        return partners.link(p.partner_id, p.business_id, request.body?.comment);
      },
    );

    app.delete(
      '/admin/v1/partners/:partner_id/businesses/:business_id',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags,
          security,
          summary: 'Unlink a business from a partner',
          params: linkParams,
          response: { 204: { type: 'null' }, 404: error },
        },
      },
      async (request, reply) => {
        const p = request.params;
        await partners.unlink(p.partner_id, p.business_id);
        return reply.code(204).send();
      },
    );

    app.post(
      '/admin/v1/partners/:partner_id/businesses/import',
      {
        config: { operator: 'partner_manager' },
        bodyLimit: 64 * 1024 * 1024,
        schema: {
          tags,
          security,
          summary: 'Import the onboarding CSV (business id, optional comment); all or nothing',
          description: 'Body: text/csv, one `business_id,comment` per line; a header line is optional.',
          params: partnerParams,
          response: { 200: { type: 'object', required: ['linked'], properties: { linked: { type: 'integer' } } }, 400: error, 404: error },
        },
      },
      async (request) => {
        if (typeof request.body !== 'string') throw apiError('UNSUPPORTED_MEDIA_TYPE', 'Send the CSV as text/csv.');
        return partners.importLinksCsv(request.params.partner_id, request.body);
      },
    );
  };
}
