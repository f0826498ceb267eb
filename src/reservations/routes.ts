import type { FastifyInstance } from 'fastify';
import { openObject, partnerWriteOf, principalOf, typedRoutes } from '../platform/http/typed-routes.js';
import { importSource, streamJsonLines } from '../platform/http/streamed-body.js';
import { MAX_IMPORT_BYTES } from '../platform/json-lines.js';
import { requireFormBody } from './params.js';
import type { ReservationOperator } from './reservation-operator.js';
import type { ReservationService } from './reservation-service.js';
import { reservationSettingsSchema } from './inventory.js';
import { canceledSchema, daySheetSchema, error, importedSettingsSchema, perDaySchema, settingsAnswer } from './operator-schemas.js';
import { sendJson } from '../platform/http/send-json.js';

/**
 * Reservations are open to every reservable restaurant, not only linked ones: the original's
 * booking partners book any restaurant on the platform (docs/contract/reservations.md §3.1), and test restaurants
 * are provisioned, not onboarded. Reservation ids are scoped by ownership instead: another
 * partner's reservation answers like an unknown id.
 */
const partner = {
  partner: {
    interface: 'reservations',
    scheme: 'bearer',
    business: { unscoped: 'books any reservable restaurant (docs/contract/reservations.md §3.1)' },
  },
} as const;
const ownReservation = {
  partner: {
    interface: 'reservations',
    scheme: 'bearer',
    business: { unscoped: "acts on the caller's own reservation; another partner's answers like an unknown id" },
  },
} as const;
const tags = ['reservations'];
const security = [{ bearerAuth: [] }];

const openingsResponse = {
  type: 'object',
  required: ['reservation_times'],
  properties: {
    reservation_times: {
      type: 'array',
      items: {
        type: 'object',
        required: ['date', 'times'],
        properties: {
          date: { type: 'string' },
          times: {
            type: 'array',
            items: {
              type: 'object',
              required: ['time', 'credit_card_required'],
              properties: { time: { type: 'string' }, credit_card_required: { type: 'boolean' }, url: { type: 'string' } },
            },
          },
        },
      },
    },
    covers_range: { type: 'object', properties: { min_party_size: { type: 'integer' }, max_party_size: { type: 'integer' } } },
  },
} as const;
const holdResponse = {
  type: 'object',
  required: [
    'hold_id',
    'expires_at',
    'credit_card_hold',
    'is_editable',
    'last_cancellation_date',
    'cancellation_policy',
    'notes',
    'reserve_url',
  ],
  properties: {
    hold_id: { type: ['string', 'null'] },
    expires_at: { type: 'number' },
    cancellation_policy: { type: 'string' },
    credit_card_hold: { type: 'boolean' },
    is_editable: { type: 'boolean' },
    last_cancellation_date: { type: 'number' },
    notes: { type: 'string' },
    reserve_url: { type: 'string' },
  },
} as const;
const reservationResponse = {
  type: 'object',
  required: ['reservation_id', 'confirmation_url', 'notes'],
  properties: { reservation_id: { type: 'string' }, confirmation_url: { type: 'string' }, notes: { type: 'string' } },
} as const;
const statusResponse = {
  type: 'object',
  required: ['active', 'date', 'time', 'covers'],
  properties: { active: { type: 'boolean' }, date: { type: 'string' }, time: { type: 'string' }, covers: { type: 'integer' } },
} as const;
const errors = { 400: { $ref: 'ErrorResponse#' }, 404: { $ref: 'ErrorResponse#' }, 409: { $ref: 'ErrorResponse#' } };
const businessParams = {
  type: 'object',
  required: ['business_id'],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200, description: 'business id or alias' } },
} as const;
const reservationParams = {
  type: 'object',
  required: ['reservation_id'],
  properties: { reservation_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

/**
 * Parameters are checked by the service (the spec gives each bad value its own code), so the
 * route schemas accept anything: a body of any shape (or none), a query string as an object.
 * `config.docs` gives the OpenAPI document their types, once.
 */
const checkedByService = { description: 'checked by the service; the OpenAPI document gives the fields' } as const;

const HHMM = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
const date = { type: 'string', format: 'date', description: 'YYYY-MM-DD (%Y-%m-%d); else DATE_TIME_VALIDATION_ERROR' } as const;
const time = { type: 'string', pattern: HHMM, description: 'HH:MM, 24-hour (%H:%M); else DATE_TIME_VALIDATION_ERROR' } as const;
const covers = {
  type: 'integer',
  minimum: 1,
  maximum: 10,
  description: 'party size; below 1 TOO_SMALL_VALIDATION_ERROR, above 10 TOO_LARGE_VALIDATION_ERROR',
} as const;
const uniqueId = {
  type: 'string',
  minLength: 1,
  maxLength: 300,
  description: "the user's device or account id; the same for repeated holds",
} as const;
const openingsQueryDocs = {
  type: 'object',
  required: ['date', 'time', 'covers'],
  properties: { date, time, covers, get_covers_range: { type: 'boolean', description: 'true: include covers_range' } },
} as const;
const holdBodyDocs = {
  type: 'object',
  required: ['date', 'time', 'covers', 'unique_id'],
  properties: { date, time, covers, unique_id: uniqueId },
} as const;
const reservationBodyDocs = {
  type: 'object',
  required: ['date', 'time', 'covers', 'first_name', 'last_name', 'phone', 'email', 'unique_id', 'hold_id'],
  properties: {
    date,
    time: { type: 'string', pattern: '^([01][0-9]|2[0-3]):(00|15|30|45)$', description: 'HH:MM with minutes 00/15/30/45, as held' },
    covers,
    first_name: { type: 'string', minLength: 1, maxLength: 100 },
    last_name: { type: 'string', minLength: 1, maxLength: 100 },
    phone: { type: 'string', minLength: 7, maxLength: 32, description: 'E.164 (+14155550123) or a national number' },
    email: { type: 'string', format: 'email', maxLength: 254 },
    unique_id: uniqueId,
    hold_id: { type: 'string', minLength: 22, maxLength: 22, description: 'from holds' },
    notes: { type: 'string', maxLength: 1000, description: 'party notes' },
  },
} as const;

export function reservationRoutes(service: ReservationService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.get(
      '/v3/bookings/:business_id/openings',
      {
        config: { ...partner, docs: { querystring: openingsQueryDocs } },
        schema: {
          tags,
          security,
          summary: 'Open reservation times: the day before, the day asked and the 2 days after',
          params: businessParams,
          querystring: openObject,
          response: { 200: openingsResponse, ...errors },
        },
      },
      // The service renders the JSON itself (see openings); the schema above documents it.
      // Not async: the answer is usually ready at once, and then costs no promise.
      (request, reply) => sendJson(reply, service.openings(request.params.business_id, request.query)),
    );

    app.post(
      '/v3/bookings/:business_id/holds',
      {
        config: { ...partner, docs: { body: holdBodyDocs } },
        schema: {
          tags,
          security,
          summary: 'Hold a slot for 5 minutes (form body only)',
          params: businessParams,
          consumes: ['application/x-www-form-urlencoded'],
          body: checkedByService,
          response: { 200: holdResponse, ...errors },
        },
      },
      async (request) => {
        const form = requireFormBody(request.query, request.body, request.headers['content-type']);
        return service.hold(principalOf(request).partnerId, request.params.business_id, form, partnerWriteOf(request));
      },
    );

    app.post(
      '/v3/bookings/:business_id/reservations',
      {
        config: { ...partner, docs: { body: reservationBodyDocs } },
        schema: {
          tags,
          security,
          summary: 'Turn a hold into a reservation (form body only)',
          params: businessParams,
          consumes: ['application/x-www-form-urlencoded'],
          body: checkedByService,
          response: { 200: reservationResponse, ...errors, 402: { $ref: 'ErrorResponse#' } },
        },
      },
      async (request) => {
        const form = requireFormBody(request.query, request.body, request.headers['content-type']);
        return service.reserve(principalOf(request).partnerId, request.params.business_id, form, partnerWriteOf(request));
      },
    );

    app.get(
      '/v3/bookings/reservation/:reservation_id/status',
      {
        config: { ...ownReservation, docs: { querystring: { type: 'object', properties: { covers } } } },
        schema: {
          tags,
          security,
          summary: 'Status of a reservation',
          params: reservationParams,
          querystring: openObject,
          response: { 200: statusResponse, ...errors },
        },
      },
      async (request) => service.status(principalOf(request).partnerId, request.params.reservation_id, request.query),
    );

    app.post(
      '/v3/bookings/reservation/:reservation_id/cancel',
      {
        config: ownReservation,
        schema: {
          tags,
          security,
          summary: 'Cancel a reservation',
          params: reservationParams,
          response: { 200: { type: 'object', additionalProperties: false, properties: {} }, ...errors },
        },
      },
      async (request) => service.cancel(principalOf(request).partnerId, request.params.reservation_id, partnerWriteOf(request)),
    );
  };
}

export function reservationAdminRoutes(service: ReservationOperator, bookings: ReservationService) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    app.addSchema(reservationSettingsSchema);
    streamJsonLines(app);
    const adminTags = ['operator'];
    const adminSecurity = [{ adminToken: [] }];
    app.get(
      '/admin/v1/businesses/:business_id/reservation-settings',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: "A restaurant's reservation inventory",
          params: businessParams,
          response: { 200: settingsAnswer, 404: error },
        },
      },
      async (request) => service.getSettings(request.params.business_id),
    );
    app.put(
      '/admin/v1/businesses/:business_id/reservation-settings',
      {
        config: { operator: 'partner_manager' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Set how a restaurant takes reservations: hours, tables, turn times, party range, card rules, cancellation',
          params: businessParams,
          body: { $ref: 'ReservationSettings#' },
          response: { 200: settingsAnswer, 400: error, 404: error },
        },
      },
      async (request) => service.setSettings(request.params.business_id, request.body),
    );
    app.post(
      '/admin/v1/reservation-settings/import',
      {
        config: { operator: 'admin' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Bulk import reservation settings (streamed; all or nothing)',
          description:
            'Body: application/x-ndjson, one {"business_id": …, "settings": {…}} per line, up to 1,000,000 lines, read as it arrives; applied only when every line is good (docs/catalogue.md "Imports").',
          response: { 200: importedSettingsSchema, 400: error },
        },
      },
      async (request) => importSource(request.body, MAX_IMPORT_BYTES, (source) => service.importSettings(source)),
    );
    app.get(
      '/admin/v1/businesses/:business_id/reservations',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: "A restaurant's day: its reservations (active and canceled) and live holds of one local date, by time",
          params: businessParams,
          querystring: { type: 'object', required: ['date'], properties: { date: { type: 'string', maxLength: 10 } } },
          response: { 200: daySheetSchema, 400: error, 404: error },
        },
      },
      async (request) => service.daySheet(request.params.business_id, request.query.date),
    );
    app.get(
      '/admin/v1/reservations/per-day',
      {
        config: { operator: 'viewer' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Reservations made per day (UTC, by creation on the pbs clock) over the last days, and how many of them are canceled',
          querystring: { type: 'object', properties: { days: { type: 'integer', minimum: 1, maximum: 366, default: 14 } } },
          response: { 200: perDaySchema },
        },
      },
      async (request) => service.madePerDay(request.query.days),
    );
    app.post(
      '/admin/v1/reservations/:reservation_id/cancel',
      {
        config: { operator: 'support' },
        schema: {
          tags: adminTags,
          security: adminSecurity,
          summary: 'Cancel a reservation on behalf of the restaurant',
          params: reservationParams,
          response: { 200: canceledSchema, 404: error, 409: error },
        },
      },
      async (request) => {
        const row = await bookings.cancelByRestaurant(request.params.reservation_id);
        return { reservation_id: row.id, status: row.status, canceled_by: row.canceled_by };
      },
    );
  };
}
