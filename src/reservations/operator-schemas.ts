/** The answers of the reservations family's operator routes (typed for the SDK and the console). */

export const error = { $ref: 'ErrorResponse#' } as const;

/** The inventory is answered as it is set (docs/reservations.md): the schema the PUT validates with. */
export const settingsAnswer = { $ref: 'ReservationSettings#' } as const;

export const daySheetSchema = {
  type: 'object',
  required: ['business_id', 'date', 'reservations', 'holds'],
  properties: {
    business_id: { type: 'string' },
    date: { type: 'string' },
    reservations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'partner_id', 'time', 'covers', 'status', 'created_at', 'table_name'],
        properties: {
          id: { type: 'string' },
          partner_id: { type: 'string' },
          time: { type: 'string' },
          covers: { type: 'integer' },
          first_name: { type: ['string', 'null'] },
          last_name: { type: ['string', 'null'] },
          phone: { type: ['string', 'null'] },
          email: { type: ['string', 'null'] },
          notes: { type: ['string', 'null'] },
          status: { type: 'string' },
          canceled_by: { type: ['string', 'null'] },
          created_at: { type: 'string' },
          table_name: { type: ['string', 'null'] },
        },
      },
    },
    holds: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'partner_id', 'time', 'covers', 'expires_at', 'created_at', 'table_name'],
        properties: {
          id: { type: 'string' },
          partner_id: { type: 'string' },
          time: { type: 'string' },
          covers: { type: 'integer' },
          unique_id: { type: ['string', 'null'] },
          expires_at: { type: 'string' },
          created_at: { type: 'string' },
          table_name: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

export const perDaySchema = {
  type: 'object',
  required: ['days'],
  properties: {
    days: {
      type: 'array',
      items: {
        type: 'object',
        required: ['date', 'made', 'canceled'],
        properties: { date: { type: 'string' }, made: { type: 'integer' }, canceled: { type: 'integer' } },
      },
    },
  },
} as const;

export const canceledSchema = {
  type: 'object',
  required: ['reservation_id', 'status', 'canceled_by'],
  properties: { reservation_id: { type: 'string' }, status: { type: 'string' }, canceled_by: { type: ['string', 'null'] } },
} as const;

export const importedSettingsSchema = { type: 'object', required: ['imported'], properties: { imported: { type: 'integer' } } } as const;
