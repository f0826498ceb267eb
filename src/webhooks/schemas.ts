import { DELIVERY_STATUSES, webhookEventTypes } from './webhook-tables.js';

/** The answers of the webhooks family's operator and portal routes (typed for the SDK and the console). */

export const endpointSchema = {
  type: 'object',
  required: [
    'partner_id',
    'url',
    'client_id',
    'event_types',
    'status',
    'status_reason',
    'verified_at',
    'secret',
    'previous_secret_valid_until',
    'duplicate_and_reorder',
  ],
  properties: {
    partner_id: { type: 'string' },
    url: { type: 'string' },
    client_id: { type: 'string' },
    event_types: { type: 'array', items: { type: 'string' } },
    status: { type: 'string', enum: ['unverified', 'verified', 'failed', 'gone'] },
    status_reason: { type: ['string', 'null'], description: 'Why it is not verified (the last result)' },
    verified_at: { type: ['string', 'null'] },
    secret: { type: 'string', description: 'The signing secret (whsec_…)' },
    previous_secret_valid_until: { type: ['string', 'null'], description: 'Until when the previous secret also signs' },
    duplicate_and_reorder: { type: 'boolean' },
  },
} as const;

export const deliverySchema = {
  type: 'object',
  required: [
    'id',
    'message_id',
    'partner_id',
    'status',
    'attempts',
    'next_attempt_at',
    'give_up_at',
    'last_status_code',
    'last_error',
    'created_at',
    'finished_at',
    'event_type',
    'business_id',
    'business_name',
    'attempts_log',
  ],
  properties: {
    id: { type: 'string' },
    message_id: { type: 'string', description: 'The `webhook-id` header' },
    partner_id: { type: 'string' },
    status: { type: 'string', enum: DELIVERY_STATUSES },
    attempts: { type: 'integer' },
    next_attempt_at: { type: 'string' },
    give_up_at: { type: 'string' },
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    finished_at: { type: ['string', 'null'] },
    event_type: { type: 'string' },
    business_id: { type: 'string' },
    business_name: { type: ['string', 'null'], description: 'null: a business pbs no longer has (or a test event’s placeholder)' },
    attempts_log: {
      type: 'array',
      items: {
        type: 'object',
        required: ['at', 'status_code', 'latency_ms', 'error', 'response_excerpt'],
        properties: {
          at: { type: 'string' },
          status_code: { type: ['integer', 'null'] },
          latency_ms: { type: 'number' },
          error: { type: ['string', 'null'] },
          response_excerpt: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

export const deliveryListSchema = {
  type: 'object',
  required: ['deliveries'],
  properties: { deliveries: { type: 'array', items: deliverySchema } },
} as const;

export const redeliveredSchema = {
  type: 'object',
  required: ['redelivered'],
  properties: { redelivered: { type: 'integer', description: 'Messages queued again' } },
} as const;

export const emittedSchema = {
  type: 'object',
  required: ['event_id', 'message_id'],
  properties: { event_id: { type: 'string' }, message_id: { type: 'string', description: 'The `webhook-id` its messages carry' } },
} as const;

/** An endpoint as it is registered or changed (the operator's route also requires client_id). */
export const endpointBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2000 },
    client_id: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'The partner’s client id at the platform; default: as before, else the partner id',
    },
    event_types: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...webhookEventTypes] } },
  },
} as const;

/** One delivery whole: the listing's view, the message as sent, and where it goes now. */
export const deliveryDetailSchema = {
  type: 'object',
  required: [...deliverySchema.required, 'payload', 'endpoint_url'],
  properties: {
    ...deliverySchema.properties,
    payload: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'The message as it is sent (its body, signed per delivery)',
    },
    endpoint_url: {
      type: ['string', 'null'],
      description: 'The URL it is delivered to now: the partner’s endpoint (null when it has none)',
    },
  },
} as const;
