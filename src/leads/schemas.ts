/** JSON schemas of leads and their events (docs/contract/leads.md), for the routes and the OpenAPI document. */

export const error = { $ref: 'ErrorResponse#' } as const;

export const businessParams = { type: 'object', required: ['business_id'], properties: { business_id: { type: 'string' } } } as const;
export const leadParams = {
  type: 'object',
  required: ['lead_id'],
  properties: { lead_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const attachment = {
  type: 'object',
  required: ['id', 'url', 'mime_type', 'resource_name'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    mime_type: { type: 'string' },
    resource_name: { type: ['string', 'null'] },
  },
} as const;

/** Get Lead: an absent optional field is left out, never null. */
export const leadSchema = {
  type: 'object',
  required: ['id', 'business_id', 'conversation_id', 'time_created', 'last_event_time', 'user', 'project'],
  properties: {
    id: { type: 'string' },
    business_id: { type: 'string' },
    conversation_id: { type: 'string' },
    time_created: { type: 'string', description: 'ISO 8601, seconds, +00:00' },
    last_event_time: { type: 'string', description: 'The time of the newest event' },
    user: { type: 'object', required: ['display_name'], properties: { display_name: { type: 'string' } } },
    project: {
      type: 'object',
      required: ['job_names', 'survey_answers'],
      properties: {
        job_names: { type: 'array', items: { type: 'string' } },
        survey_answers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['question_text', 'question_identifier', 'answer_text'],
            properties: {
              question_text: { type: 'string' },
              question_identifier: { type: ['string', 'null'] },
              answer_text: { type: 'array', items: { type: 'string' } },
            },
          },
        },
        location: { type: 'object', properties: { postal_code: { type: 'string' } } },
        availability: {
          type: 'object',
          properties: { status: { type: 'string' }, dates: { type: 'array', items: { type: 'string', format: 'date' } } },
        },
        additional_info: { type: 'string' },
        attachments: {
          type: 'array',
          items: { ...attachment, properties: { ...attachment.properties, resource_name: { type: 'string' } } },
        },
      },
    },
    temporary_email_address: { type: 'string', description: 'Mail sent here is added to the conversation' },
    temporary_email_address_expiry: { type: 'string' },
    phone_number: { type: 'string', description: 'E.164; present once the consumer opted in to phone contact' },
    temporary_phone_number: { type: 'string', description: 'The same number as phone_number (legacy field)' },
    temporary_phone_number_expiry: { type: 'string' },
    link_to_reply_in_yelp: { type: 'string' },
  },
} as const;

/** An event of Get Lead Events; `channel` only on BIZ events that have one. */
export const leadEventSchema = {
  type: 'object',
  required: ['id', 'cursor', 'time_created', 'event_type', 'user_type', 'user_id', 'user_display_name', 'event_content'],
  properties: {
    id: { type: 'string', description: 'A text and its attachment share one id' },
    cursor: { type: 'string', description: 'An opaque paging token, not an id' },
    time_created: { type: 'string' },
    event_type: { type: 'string', description: 'TEXT, ATTACHMENT_GROUPING, …' },
    user_type: { type: 'string', enum: ['CONSUMER', 'BIZ'] },
    user_id: { type: 'string' },
    user_display_name: { type: 'string' },
    event_content: {
      type: 'object',
      required: ['fallback_text'],
      properties: { text: { type: 'string' }, fallback_text: { type: 'string' }, attachments: { type: 'array', items: attachment } },
    },
    channel: { type: 'string', description: 'API-SELF: written through the Leads API' },
  },
} as const;

/** The operator's view of a lead: the partner's view of it and its newest events, with its read and replied state. */
export const operatorLeadSchema = {
  type: 'object',
  required: ['lead', 'events', 'read_through_event_id', 'replied_as'],
  properties: {
    lead: leadSchema,
    events: {
      type: 'array',
      items: {
        ...leadEventSchema,
        properties: {
          ...leadEventSchema.properties,
          message_id: { type: 'string', description: 'The `webhook-id` of the NEW_EVENT webhook that announced it' },
        },
      },
    },
    read_through_event_id: { type: ['string', 'null'], description: 'The newest event the business marked read' },
    replied_as: { type: ['string', 'null'], enum: ['PHONE', 'EMAIL', null], description: 'Marked replied outside the conversation' },
  },
} as const;

/** What an operator's lead event wrote: the webhook event, and the lead (and its new message) behind it. */
export const leadEmittedSchema = {
  type: 'object',
  required: ['event_id', 'message_id', 'lead_id'],
  properties: {
    event_id: { type: 'string' },
    message_id: { type: 'string', description: 'The `webhook-id` its messages carry' },
    lead_id: { type: 'string' },
    lead_event_id: { type: 'string', description: "The new message's id in the conversation, and the webhook's event_id" },
  },
} as const;
