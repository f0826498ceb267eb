import type { FastifyInstance } from 'fastify';
import { apiError } from '../platform/errors.js';
import { typedRoutes } from '../platform/http/typed-routes.js';
import type { RequestLogFilter } from './request-log-store.js';
import type { RequestLog } from './request-log.js';

const tags = ['operator'];
const security = [{ adminToken: [] }];
const text = (maxLength = 200) => ({ type: 'string', minLength: 1, maxLength }) as const;
const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The listing's filters (docs/request-log.md "Reading it"). */
export const requestLogQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    partner_id: text(64),
    status: { type: 'string', pattern: '^[1-5]([0-9]{2}|xx)$', description: 'A status (`404`) or a class (`4xx`)' },
    interface: text(40),
    operation: { ...text(300), description: 'As listed, e.g. `POST /v3/bookings/{business_id}/holds`' },
    error_code: text(80),
    request_id: text(100),
    idempotency_key: text(255),
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    after_id: { type: 'integer', minimum: 0, maximum: MAX_ID, description: 'Entries after this one, oldest first (tailing)' },
    before_id: { type: 'integer', minimum: 0, maximum: MAX_ID, description: 'Entries before this one, newest first (paging back)' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
} as const;

const entry = {
  type: 'object',
  required: ['id', 'at', 'partner_id', 'interface', 'operation', 'method', 'path', 'query', 'status', 'error_code', 'request_id'],
  properties: {
    id: { type: 'integer' },
    at: { type: 'string' },
    partner_id: { type: ['string', 'null'] },
    credential: {
      type: ['object', 'null'],
      properties: { kind: { type: 'string' }, id: { type: ['string', 'null'] } },
    },
    interface: { type: 'string' },
    operation: { type: 'string' },
    method: { type: 'string' },
    path: { type: 'string' },
    query: { type: 'string' },
    status: { type: 'integer' },
    error_code: { type: ['string', 'null'] },
    duration_ms: { type: 'number' },
    request_id: { type: 'string' },
    idempotency_key: { type: ['string', 'null'] },
    client_address: { type: 'string' },
    bodies_cut: { type: 'boolean', description: 'A body was longer than 16 kB and is cut' },
    fault_rule: {
      type: ['string', 'null'],
      description: 'The fault rule that answered the request, or delayed one answered without error (sandbox)',
    },
    injected: { type: 'boolean', description: 'The answer is the fault rule’s (an injected error or a dropped call), not the API’s' },
  },
} as const;

export const requestLogListSchema = {
  type: 'object',
  required: ['entries', 'dropped'],
  properties: {
    entries: { type: 'array', items: entry },
    dropped: { type: 'integer', description: 'Entries this process could not keep up with since it started' },
  },
} as const;

const causedEvent = {
  type: 'object',
  required: ['event_id', 'event_type', 'business_id', 'occurred_at', 'message_id', 'deliveries'],
  properties: {
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    business_id: { type: 'string' },
    occurred_at: { type: 'string' },
    message_id: { type: 'string', description: 'The webhook message’s id (its `webhook-id` header)' },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'partner_id', 'status', 'attempts', 'last_status_code'],
        properties: {
          id: { type: 'string' },
          partner_id: { type: 'string' },
          status: { type: 'string' },
          attempts: { type: 'integer' },
          last_status_code: { type: ['integer', 'null'] },
        },
      },
    },
  },
} as const;

export const requestLogEntrySchema = {
  type: 'object',
  required: [...entry.required, 'request_body', 'response_body', 'caused'],
  properties: {
    ...entry.properties,
    request_body: { type: ['string', 'null'] },
    response_body: { type: ['string', 'null'] },
    caused: {
      type: 'array',
      description: 'The webhook events the request caused, each with its deliveries (a portal session sees its own only)',
      items: causedEvent,
    },
  },
} as const;

export const errorGroupsSchema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['error_code', 'operation', 'status', 'count', 'first_seen', 'last_seen', 'injected', 'hint'],
        properties: {
          error_code: { type: 'string' },
          operation: { type: 'string' },
          status: { type: 'integer' },
          count: { type: 'integer' },
          first_seen: { type: 'string' },
          last_seen: { type: 'string' },
          injected: { type: 'boolean', description: 'Answered by the partner’s own fault rule, not by the API (grouped apart)' },
          hint: { type: ['string', 'null'], description: 'What the rule behind the code is and what to do' },
        },
      },
    },
  },
} as const;

/** The filter a listing asks for, from its query (checked by the schema; the dates and the status read here). */
export function requestLogFilter(query: {
  partner_id?: string;
  status?: string;
  interface?: string;
  operation?: string;
  error_code?: string;
  request_id?: string;
  idempotency_key?: string;
  from?: string;
  to?: string;
  after_id?: number;
  before_id?: number;
  limit?: number;
}): RequestLogFilter {
  const time = (value: string | undefined, field: string) => {
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw apiError('VALIDATION_ERROR', `${field} is not a date-time`, { field });
    return ms;
  };
  const status = query.status;
  return {
    partnerId: query.partner_id,
    statusClass: status?.endsWith('xx') ? Number(status[0]) : undefined,
    status: status && !status.endsWith('xx') ? Number(status) : undefined,
    interface: query.interface,
    operation: query.operation,
    errorCode: query.error_code,
    requestId: query.request_id,
    idempotencyKey: query.idempotency_key,
    from: time(query.from, 'from'),
    to: time(query.to, 'to'),
    afterId: query.after_id,
    beforeId: query.before_id,
    limit: query.limit ?? 50,
  };
}

/** The operator's view of the request log: every partner's requests, filtered, and one whole. */
export function requestLogAdminRoutes(log: RequestLog) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/admin/v1/request-log',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Partner requests as pbs received and answered them, newest first (or oldest first after `after_id`)',
          querystring: requestLogQuery,
          response: {
            200: requestLogListSchema,
          },
        },
      },
      async (request) => ({ entries: await log.list(requestLogFilter(request.query)), dropped: log.dropped }),
    );
    app.get(
      '/admin/v1/request-log/errors',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'Errors answered over a period, grouped by code and operation, with counts, first and last seen, and a hint',
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: { partner_id: text(64), from: requestLogQuery.properties.from, to: requestLogQuery.properties.to },
          },
          response: { 200: errorGroupsSchema },
        },
      },
      async (request) => {
        const { partnerId, from, to } = requestLogFilter(request.query);
        return { errors: await log.errorGroups({ partnerId, from, to }) };
      },
    );
    app.get(
      '/admin/v1/request-log/:entry_id',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'One partner request whole: what was sent and answered (secrets redacted, guest data masked)',
          params: {
            type: 'object',
            required: ['entry_id'],
            properties: { entry_id: { type: 'integer', minimum: 1, maximum: MAX_ID } },
          },
          response: {
            200: requestLogEntrySchema,
            404: { $ref: 'ErrorResponse#' },
          },
        },
      },
      async (request) => {
        const found = await log.entry(request.params.entry_id);
        if (!found) throw apiError('NOT_FOUND', `No request log entry ${request.params.entry_id}`);
        return found;
      },
    );
  };
}
