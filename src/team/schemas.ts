import { operatorRoles } from '../platform/auth/operator.js';
import { PASSWORD_LENGTH } from '../platform/passwords.js';
import { MAX_AUDIT_PAGE } from '../platform/audit/audit-store.js';
import { TOKEN_DAYS } from './team-service.js';

export const error = { $ref: 'ErrorResponse#' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
export const role = { type: 'string', enum: [...operatorRoles] } as const;

export const accountSchema = {
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'state', 'sign_in', 'created_at', 'last_sign_in_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role,
    state: { type: 'string', enum: ['invited', 'active', 'disabled'] },
    sign_in: {
      type: 'object',
      required: ['password', 'totp', 'sso'],
      properties: { password: { type: 'boolean' }, totp: { type: 'boolean' }, sso: { type: 'boolean' } },
    },
    created_at: time,
    last_sign_in_at: nullableTime,
  },
} as const;

export const setupLinkSchema = {
  type: 'object',
  required: ['setup_url', 'setup_token'],
  properties: {
    setup_url: { type: 'string', description: 'Single-use: the person opens it to set a password and a second factor (7 days)' },
    setup_token: { type: 'string' },
  },
} as const;

export const tokenSchema = {
  type: 'object',
  required: ['id', 'account_id', 'name', 'role', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'],
  properties: {
    id: { type: 'string' },
    account_id: { type: 'string' },
    name: { type: 'string' },
    role,
    created_at: time,
    expires_at: time,
    last_used_at: nullableTime,
    revoked_at: nullableTime,
  },
} as const;

export const accountParams = {
  type: 'object',
  required: ['account_id'],
  properties: { account_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const inviteBody = {
  type: 'object',
  required: ['email', 'role'],
  additionalProperties: false,
  properties: { email: { type: 'string', minLength: 3, maxLength: 254 }, name: { type: 'string', maxLength: 200 }, role },
} as const;

export const accountChangeBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, role, disabled: { type: 'boolean' } },
} as const;

export const tokenBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'What the token is for (a script, a laptop)' },
    role: { ...role, description: 'At most your own role (the default)' },
    expires_in_days: { type: 'integer', minimum: 1, maximum: TOKEN_DAYS.max, default: TOKEN_DAYS.default },
  },
} as const;

export const auditQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    actor: { type: 'string', maxLength: 254, description: 'An account id, or part of the e-mail the action was made under' },
    partner_id: { type: 'string', maxLength: 64 },
    business_id: { type: 'string', maxLength: 64 },
    action: { type: 'string', maxLength: 200, description: 'Part of the action: `disable`, `credentials`, `SIGN-IN`' },
    since: time,
    until: time,
    limit: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: 50 },
    cursor: { type: 'string', maxLength: 100, description: 'next_cursor of the previous page' },
  },
} as const;

export const auditRecordSchema = {
  type: 'object',
  required: ['id', 'at', 'actor', 'address', 'action', 'target', 'partner_id', 'business_id', 'details'],
  properties: {
    id: { type: 'string' },
    at: time,
    actor: {
      type: 'object',
      required: ['via', 'account_id', 'token_id', 'name'],
      properties: {
        via: { type: 'string', enum: ['bootstrap', 'session', 'token'] },
        account_id: { type: ['string', 'null'] },
        token_id: { type: ['string', 'null'] },
        name: { type: 'string' },
      },
    },
    address: { type: 'string' },
    action: { type: 'string', description: 'Method and route, or SIGN-IN password|sso' },
    target: {
      type: ['object', 'null'],
      required: ['kind', 'id'],
      properties: { kind: { type: 'string' }, id: { type: 'string' } },
    },
    partner_id: { type: ['string', 'null'] },
    business_id: { type: ['string', 'null'] },
    details: { type: 'object', additionalProperties: true, description: 'Parameters and fields (secrets replaced), before → after' },
  },
} as const;

export const signInBody = {
  type: 'object',
  required: ['email', 'password', 'totp_code'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: PASSWORD_LENGTH.max },
    totp_code: { type: 'string', minLength: 6, maxLength: 10 },
  },
} as const;

export const setupBody = {
  type: 'object',
  required: ['setup_token'],
  additionalProperties: false,
  properties: {
    setup_token: { type: 'string', minLength: 10, maxLength: 100 },
    password: { type: 'string', minLength: PASSWORD_LENGTH.min, maxLength: PASSWORD_LENGTH.max },
    totp_code: { type: 'string', minLength: 6, maxLength: 10 },
  },
} as const;
