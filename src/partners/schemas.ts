import { partnerInterfaces } from '../platform/auth/principal.js';

/** The answers of the partners family's operator routes (typed for the SDK and the console). */

const interfaceGrant = {
  type: 'object',
  required: ['enabled', 'per_second', 'per_day'],
  properties: {
    enabled: { type: 'boolean' },
    per_second: { type: ['integer', 'null'], description: 'The partner’s own limit; null: the default' },
    per_day: { type: ['integer', 'null'] },
  },
} as const;

export const partnerSchema = {
  type: 'object',
  required: ['id', 'name', 'status', 'created_at', 'updated_at', 'interfaces'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['active', 'disabled'] },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    interfaces: {
      type: 'object',
      required: [...partnerInterfaces],
      properties: Object.fromEntries(partnerInterfaces.map((name) => [name, interfaceGrant])),
    },
  },
} as const;

export const partnerListSchema = {
  type: 'object',
  required: ['total', 'limit', 'offset', 'partners'],
  properties: {
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    partners: { type: 'array', items: partnerSchema },
  },
} as const;

/** The longest a rolled credential's old secret may keep working: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

const credentialProperties = {
  id: { type: 'string' },
  partner_id: { type: 'string' },
  kind: { type: 'string', enum: ['api_key', 'basic', 'oauth_client'] },
  label: { type: ['string', 'null'] },
  public_id: { type: 'string', description: 'What identifies it without its secret (a key’s start, the username, the client id)' },
  created_at: { type: 'string' },
  rotated_at: { type: ['string', 'null'] },
  revoked_at: { type: ['string', 'null'] },
  previous_secret_valid_until: { type: ['string', 'null'] },
} as const;
const credentialRequired = [
  'id',
  'partner_id',
  'kind',
  'label',
  'public_id',
  'created_at',
  'rotated_at',
  'revoked_at',
  'previous_secret_valid_until',
] as const;

export const credentialSchema = { type: 'object', required: credentialRequired, properties: credentialProperties } as const;

/** A credential as issued or rotated: its secret too, shown only in this answer. */
export const issuedCredentialSchema = {
  type: 'object',
  required: credentialRequired,
  properties: {
    ...credentialProperties,
    api_key: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    client_id: { type: 'string' },
    client_secret: { type: 'string' },
  },
} as const;

export const linkListSchema = {
  type: 'object',
  required: ['total', 'limit', 'offset', 'businesses'],
  properties: {
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    businesses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['business_id', 'alias', 'name', 'comment', 'linked_at'],
        properties: {
          business_id: { type: 'string' },
          alias: { type: ['string', 'null'] },
          name: { type: ['string', 'null'] },
          comment: { type: ['string', 'null'] },
          linked_at: { type: 'string' },
        },
      },
    },
  },
} as const;

export const linkSchema = {
  type: 'object',
  required: ['partner_id', 'business_id', 'comment'],
  properties: { partner_id: { type: 'string' }, business_id: { type: 'string' }, comment: { type: ['string', 'null'] } },
} as const;
