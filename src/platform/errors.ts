/**
 * The single error catalogue: every code pbs answers with, its HTTP status and a default
 * description. Bodies always take the v3 form `{"error": {"code", "description"}}` (docs/contract/common.md §1.1),
 * optionally with `field` and `instance` for validation failures.
 */
export const errorCatalogue = {
  // Generic v3 codes (docs/contract/common.md §1.2)
  INVALID_REQUEST: { status: 400, description: 'Invalid Request' },
  VALIDATION_ERROR: { status: 400, description: 'A request parameter is invalid' },
  MALFORMED_JSON: { status: 400, description: 'The request body is not valid JSON' },
  LOCATION_NOT_FOUND: { status: 400, description: 'Could not execute search, try specifying a more exact location.' },
  TOKEN_MISSING: { status: 401, description: 'An access token must be supplied in order to use this endpoint.' },
  TOKEN_INVALID: { status: 401, description: 'Invalid access token or authorization header.' },
  UNAUTHORIZED_API_KEY: { status: 401, description: 'The API key provided is not currently able to query this endpoint.' },
  INVALID_CLIENT: { status: 401, description: 'Client authentication failed.' },
  AUTHORIZATION_ERROR: { status: 403, description: 'Authorization Error' },
  PARTNER_ENDPOINT_DISABLED: {
    status: 403,
    description: 'This client is not enabled for this partner endpoint. Contact the platform operator to request access.',
  },
  NOT_FOUND: { status: 404, description: 'Resource Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'Method Not Allowed' },
  REQUEST_TIMEOUT: { status: 408, description: 'The request did not arrive in time.' },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    description: 'A request with this Idempotency-Key is still being processed; retry later.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request is too long.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Unsupported Content-Type' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    description: 'This Idempotency-Key was already used with a different request.',
  },
  TOO_MANY_REQUESTS_PER_SECOND: {
    status: 429,
    description: 'You have exceeded the queries-per-second limit for this endpoint. Try reducing the rate at which you make queries.',
  },
  ACCESS_LIMIT_REACHED: {
    status: 429,
    description:
      'You have reached the daily request limit for this API key. It resets at midnight UTC; ask the platform operator for a higher limit.',
  },
  INTERNAL_ERROR: { status: 500, description: 'Something went wrong internally, please try again later.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'Service Unavailable' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, description: 'grant_type must be client_credentials, authorization_code or refresh_token' },
  INVALID_GRANT: {
    status: 400,
    description: 'The authorization code or refresh token is invalid, expired, already used, revoked, or was issued to another client.',
  },
  INVALID_SCOPE: { status: 400, description: 'The requested scope is unknown.' },

  // Leads (docs/contract/leads.md)
  INVALID_ID: { status: 400, description: 'The id is not valid.' },
  SAME_SUCCESSIVE_MESSAGE: {
    status: 400,
    description: 'The same message was sent to this lead less than an hour ago, with no reply from the consumer in between.',
  },
  NO_BUSINESS_ACCESS: { status: 403, description: 'The business user has no access to this business.' },
  UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING: {
    status: 403,
    description: 'Leads data is available only for businesses that are currently advertising.',
  },
  NOT_AUTHORIZED: { status: 403, description: 'Not authorized.' },

  // Reservations (spec "Errors"; docs/contract/reservations.md §3)
  DATE_TIME_VALIDATION_ERROR: { status: 400, description: 'Invalid format' },
  TOO_SMALL_VALIDATION_ERROR: { status: 400, description: 'Number too small' },
  TOO_LARGE_VALIDATION_ERROR: { status: 400, description: 'Number too big' },
  COVERS_VALUE_OUT_OF_RANGE: { status: 400, description: 'Party size outside the range this restaurant accepts online' },
  INVALID_DATE_TIME_RANGE: { status: 400, description: 'Date time range invalid' },
  INVALID_RESERVATION_PARAMETER: { status: 400, description: 'Bad request' },
  INVALID_HOLD_ID: { status: 400, description: 'Hold id is not valid' },
  RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS: {
    status: 400,
    description: 'Reservation parameters do not match the parameters of the hold',
  },
  CREDIT_CARD_REQUIRED: { status: 402, description: 'This reservation requires a credit card hold' },
  BUSINESS_NOT_FOUND: { status: 404, description: 'Business not found' },
  DOES_NOT_TAKE_RESERVATIONS: { status: 404, description: 'This business does not take reservations' },
  HOLD_NOT_FOUND: { status: 404, description: 'No valid hold was found' },
  HOLD_SLOT_NOT_AVAILABLE: { status: 409, description: 'The requested hold time is unavailable' },
  RESERVATION_SLOT_NO_LONGER_AVAILABLE: { status: 409, description: 'The slot is no longer available' },
  DUPLICATE_RESERVATION: { status: 409, description: 'You already have a reservation for that day' },
  // 400 on status, 404 on cancel: callers override the status where the spec says so.
  INVALID_RESERVATION_ID: { status: 400, description: 'Reservation id is not valid' },
  RESERVATION_CANCELED: { status: 400, description: 'The reservation has been canceled' },
  RESERVATION_ALREADY_CANCELED: { status: 409, description: 'The reservation is already canceled' },
  RESERVATION_CANCEL_CONFLICT: { status: 409, description: 'Cancellation failed due to a conflict' },

  // Waitlist (docs/contract/waitlist.md §4.2)
  CONFLICT: { status: 409, description: 'Conflict' },
  ALREADY_IN_LINE: { status: 422, description: 'This guest is already in line' },
  INVALID_ETA: { status: 422, description: 'Invalid arrival estimate' },
  CURRENTLY_HAS_WAIT: { status: 422, description: 'The restaurant currently has a wait' },
  CURRENTLY_NO_WAIT: { status: 422, description: 'The restaurant currently has no wait' },
  PARTY_SIZE_TOO_LARGE: { status: 422, description: 'Party size is too large' },
  RESTAURANT_NOT_OPEN: { status: 422, description: 'The restaurant is not open' },
  REMOTE_ENTRY_DENIED: { status: 422, description: 'Remote entry is not allowed' },
  SCHEDULE_CONFLICT: { status: 422, description: 'Schedule conflict' },
  INVALID_SEATING_PREFERENCE: { status: 422, description: 'Invalid seating preference' },
  VISIT_ALREADY_IN_TERMINAL_STATE: { status: 409, description: 'The visit is already in a terminal state' },

  // Subscriptions (docs/contract/subscriptions.md §5)
  QUOTA_EXCEEDED: { status: 403, description: 'Subscription quota exceeded' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Whether `value` is a code of the catalogue (read from a stored rule or an answer). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

export interface ErrorBody {
  error: { code: string; description: string; field?: string | null; instance?: unknown };
}

export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    description?: string,
    readonly details: { status?: number; field?: string | null; instance?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(description ?? errorCatalogue[code].description);
    this.status = details.status ?? errorCatalogue[code].status;
    this.headers = details.headers ?? {};
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, description: this.message };
    if (this.details.field !== undefined) error.field = this.details.field;
    if (this.details.instance !== undefined) error.instance = this.details.instance;
    return { error };
  }
}

export function apiError(code: ErrorCode, description?: string, details?: ApiError['details']): ApiError {
  return new ApiError(code, description, details);
}

/** The code pbs answers with for an HTTP status when nothing more specific is known. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'TOKEN_INVALID';
    case 403:
      return 'AUTHORIZATION_ERROR';
    case 404:
      return 'NOT_FOUND';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 429:
      return 'TOO_MANY_REQUESTS_PER_SECOND';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST';
  }
}
