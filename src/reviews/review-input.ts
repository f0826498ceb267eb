import type { FromSchema } from 'json-schema-to-ts';
import { apiError } from '../platform/errors.js';
import { localToUtc } from '../platform/local-time.js';
import { schemaValidator } from '../platform/validation.js';
import { DEFAULT_LOCALE, isSupportedLocale, languageOf, SUPPORTED_LOCALES } from './locales.js';
import { RESPONSE_ROLES, type ResponseRole } from './review-tables.js';
import { isOneOf } from '../platform/query.js';

/** Reviews are shown in Pacific time (docs/contract/reviews-and-engagement.md §7.1: `time_created` "in PDT"). */
export const REVIEW_TIME_ZONE = 'America/Los_Angeles';

export const MAX_REVIEW_TEXT = 20_000;
const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const timeInput = {
  type: 'string',
  maxLength: 40,
  description: 'ISO 8601 with an offset (or Z), or `YYYY-MM-DD HH:MM:SS` in Pacific time; default now',
} as const;

const userSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    id: { type: 'string', pattern: ID_PATTERN, description: 'Default: derived from the name' },
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'Shown as "First L."' },
    image_url: { type: 'string', maxLength: 2000 },
  },
} as const;

export const publicResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text', 'business_user'],
  properties: {
    text: { type: 'string', minLength: 1, maxLength: MAX_REVIEW_TEXT },
    time_created: timeInput,
    business_user: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'role'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        role: { type: 'string', maxLength: 40, description: 'OWNER, MANAGER, CUSTOMER_SERVICE (or "CUSTOMER SERVICE") or EMPLOYEE' },
        photo_url: { type: 'string', maxLength: 2000 },
      },
    },
  },
} as const;

const textSchema = {
  description: 'The text, in `locale`; or texts by locale, e.g. {"en_US": "…", "fr_FR": "…"} (one per language)',
  anyOf: [
    { type: 'string', minLength: 1, maxLength: MAX_REVIEW_TEXT },
    {
      type: 'object',
      minProperties: 1,
      maxProperties: SUPPORTED_LOCALES.length,
      propertyNames: { enum: [...SUPPORTED_LOCALES] },
      additionalProperties: { type: 'string', minLength: 1, maxLength: MAX_REVIEW_TEXT },
    },
  ],
} as const;

const reviewFields = {
  rating: { type: 'integer', minimum: 1, maximum: 5 },
  text: textSchema,
  locale: { type: 'string', enum: [...SUPPORTED_LOCALES], description: 'The locale of a text given as a string; default en_US' },
  user: userSchema,
  time_created: timeInput,
} as const;

/** A new review (the operator API's body; an import line adds `business_id`). */
export const reviewInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rating', 'text', 'user'],
  properties: {
    id: { type: 'string', pattern: ID_PATTERN },
    ...reviewFields,
    public_response: { anyOf: [{ type: 'null' }, publicResponseSchema] },
  },
} as const;

/** An edit: the fields given replace the review's (texts per language). */
export const reviewEditSchema = { type: 'object', additionalProperties: false, minProperties: 1, properties: reviewFields } as const;

const importLineSchema = {
  ...reviewInputSchema,
  required: ['business_id', ...reviewInputSchema.required],
  properties: { business_id: { type: 'string', minLength: 1, maxLength: 200 }, ...reviewInputSchema.properties },
} as const;

const checkReview = schemaValidator(reviewInputSchema, 'review');
const checkEdit = schemaValidator(reviewEditSchema, 'review');
const checkImportLine = schemaValidator(importLineSchema, 'review');
const checkResponse = schemaValidator(publicResponseSchema, 'public_response');

export interface TextDraft {
  locale: string;
  language: string;
  text: string;
}

export interface ResponseDraft {
  text: string;
  time: number;
  userName: string;
  role: ResponseRole;
  photoUrl: string;
}

export interface ReviewDraft {
  id?: string;
  rating?: number;
  texts?: TextDraft[];
  user?: { id?: string; name: string; image_url: string };
  time?: number;
  publicResponse?: ResponseDraft | null;
}

const PACIFIC_FORM = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A time as the operator writes it: ISO 8601 with an offset, or the partner form in Pacific time. */
export function parseReviewTime(value: string, field: string): number {
  const pacific = PACIFIC_FORM.exec(value);
  let ms = Number.NaN;
  if (pacific && Number(pacific[2]) < 24 && Number(pacific[3]) < 60 && Number(pacific[4]) < 60) {
    ms = localToUtc(pacific[1], Number(pacific[2]) * 60 + Number(pacific[3]), REVIEW_TIME_ZONE) + Number(pacific[4]) * 1000;
  } else if (ISO_WITH_OFFSET.test(value)) {
    ms = Date.parse(value);
  }
  if (!Number.isFinite(ms) || ms < Date.UTC(1970, 0, 1) || ms > Date.UTC(9000, 0, 1)) {
    throw apiError('VALIDATION_ERROR', `${field} must be ISO 8601 with an offset or "YYYY-MM-DD HH:MM:SS" (Pacific time)`, { field });
  }
  return ms;
}

/** `CUSTOMER SERVICE`, `customer-service` … → CUSTOMER_SERVICE; anything else is refused. */
export function normalizeRole(value: string): ResponseRole {
  const role = value
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  if (!isOneOf(RESPONSE_ROLES, role)) {
    throw apiError('VALIDATION_ERROR', `role must be one of ${RESPONSE_ROLES.join(', ')}`, { field: 'business_user.role' });
  }
  return role;
}

/** A review's fields as the schemas declare them (an edit's: every field optional). */
type ReviewFields = FromSchema<typeof reviewEditSchema> & { id?: string; public_response?: PublicResponseInput | null };
type PublicResponseInput = FromSchema<typeof publicResponseSchema>;

function texts(text: NonNullable<ReviewFields['text']>, locale: string | undefined): TextDraft[] {
  const entries: Array<[string, string]> = typeof text === 'string' ? [[locale ?? DEFAULT_LOCALE, text]] : Object.entries(text);
  const byLanguage = new Map<string, TextDraft>();
  for (const [loc, value] of entries) {
    if (!isSupportedLocale(loc)) throw apiError('VALIDATION_ERROR', `${loc} is not a supported locale`, { field: 'text' });
    const language = languageOf(loc);
    if (byLanguage.has(language))
      throw apiError(
        'VALIDATION_ERROR',
        `Two texts in one language (${byLanguage.get(language)!.locale} and ${loc}); give one per language`,
        { field: 'text' },
      );
    byLanguage.set(language, { locale: loc, language, text: value });
  }
  return [...byLanguage.values()];
}

function responseDraft(value: PublicResponseInput, now: number): ResponseDraft {
  const user = value.business_user;
  return {
    text: value.text,
    time: typeof value.time_created === 'string' ? parseReviewTime(value.time_created, 'public_response.time_created') : now,
    userName: user.name,
    role: normalizeRole(user.role),
    photoUrl: user.photo_url ?? '',
  };
}

function draftOf(value: ReviewFields, now: number): ReviewDraft {
  const draft: ReviewDraft = {};
  if (typeof value.id === 'string') draft.id = value.id;
  if (value.rating !== undefined) draft.rating = value.rating;
  if (value.text !== undefined) draft.texts = texts(value.text, value.locale);
  else if (value.locale !== undefined)
    throw apiError('VALIDATION_ERROR', 'locale names the locale of text; give text with it', { field: 'locale' });
  if (value.user !== undefined) {
    const user = value.user;
    draft.user = { id: user.id, name: user.name.trim(), image_url: user.image_url ?? '' };
  }
  if (typeof value.time_created === 'string') draft.time = parseReviewTime(value.time_created, 'time_created');
  if (value.public_response !== undefined)
    draft.publicResponse = value.public_response === null ? null : responseDraft(value.public_response, now);
  return draft;
}

export function newReviewDraft(input: unknown, now: number, where?: string): ReviewDraft {
  return draftOf(checkReview(input, where), now);
}

export function reviewEditDraft(input: unknown, now: number): ReviewDraft {
  return draftOf(checkEdit(input), now);
}

export function importLineDraft(input: unknown, now: number, where: string): { businessId: string; draft: ReviewDraft } {
  const { business_id, ...review } = checkImportLine(input, where);
  return { businessId: business_id, draft: draftOf(review, now) };
}

export function publicResponseDraft(input: unknown, now: number): ResponseDraft {
  return responseDraft(checkResponse(input), now);
}
