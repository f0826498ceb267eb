import type { ErrorCode } from '../platform/errors.js';

/**
 * A plain hint for every code of the error catalogue: what the rule behind it is and what a
 * client should do (docs/request-log.md "Errors explained"). Typed as a record of every code, so
 * a code added to the catalogue without a hint does not compile (and a test says so too).
 */
export const errorHints: Record<ErrorCode, string> = {
  INVALID_REQUEST: 'A parameter is missing or malformed; `field` names it when pbs knows which. Check the operation in /docs.',
  VALIDATION_ERROR: 'A parameter failed its check (type, range, length or format); `field` names it.',
  MALFORMED_JSON: 'The body is not valid JSON (or nests deeper than pbs reads). Send application/json produced by a JSON encoder.',
  LOCATION_NOT_FOUND:
    'The location text matched no city or neighbourhood pbs knows; send latitude and longitude, or a more exact location.',
  TOKEN_MISSING:
    'No credentials were sent. API keys and access tokens go in `Authorization: Bearer …`; advertising and listing management take HTTP Basic.',
  TOKEN_INVALID:
    'The credentials are unknown, revoked or expired. Access tokens last as long as `expires_in` said; fetch a new one from /oauth2/token.',
  UNAUTHORIZED_API_KEY: 'The partner is disabled by the operator: none of its credentials work until it is enabled again.',
  INVALID_CLIENT: 'The OAuth client id or secret is wrong (or was rotated). Repeated failures from one address are slowed down.',
  AUTHORIZATION_ERROR:
    'The business is not linked to this partner. The operator links businesses (or the onboarding CSV does) before a partner may act for them.',
  PARTNER_ENDPOINT_DISABLED: 'This interface is not enabled for the partner. Interfaces start disabled; ask the operator to enable it.',
  NOT_FOUND: 'Nothing answers at this path, or the id names nothing this partner can see (another partner’s objects answer the same way).',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; the `Allow` header lists the methods it takes.',
  REQUEST_TIMEOUT: 'The request did not arrive whole in time (a slow or stalled upload); send the body at once.',
  IDEMPOTENCY_KEY_IN_USE: 'A request with the same Idempotency-Key is still running; retry after it finishes to get its answer.',
  PAYLOAD_TOO_LARGE: 'The body or the list in it is larger than the operation allows (e.g. more than 1,000 business ids); split it.',
  UNSUPPORTED_MEDIA_TYPE: 'Wrong Content-Type: reservation writes take forms (application/x-www-form-urlencoded), most others JSON.',
  IDEMPOTENCY_KEY_REUSED:
    'This Idempotency-Key came before with a different request. Use a new key for each distinct request, the same key only for its retries.',
  TOO_MANY_REQUESTS_PER_SECOND: 'Over the per-second limit of this interface; wait what `Retry-After` says, then retry (the SDK does).',
  ACCESS_LIMIT_REACHED: 'The daily budget of this interface is spent; it resets at midnight UTC. The operator can raise it per partner.',
  INTERNAL_ERROR:
    'A fault in pbs, not in the request. Quote the request id to the operator; retrying with the same Idempotency-Key is safe.',
  SERVICE_UNAVAILABLE: 'pbs is starting, stopping or cannot reach its database; retry after `Retry-After`.',
  UNSUPPORTED_GRANT_TYPE:
    'The token endpoint takes grant_type=client_credentials (a partner token), authorization_code or refresh_token (a business user’s token).',
  INVALID_GRANT:
    'The code or refresh token cannot be used: codes last 5 minutes and work once, with the redirect_uri and PKCE verifier of their authorization; ask the business user to authorize again.',
  INVALID_SCOPE: 'Ask for scopes pbs knows, separated by spaces: `leads` reads leads and replies to them.',
  INVALID_ID:
    'The lead or event id is not one pbs could have issued (wrong length or characters); use ids exactly as webhooks and Get Lead Events give them.',
  SAME_SUCCESSIVE_MESSAGE:
    'This text went to this lead within the last hour and the consumer has not answered since; do not repeat a reply on retry.',
  NO_BUSINESS_ACCESS:
    'The business user who authorized this token does not manage this business; a token reaches only the businesses of its user.',
  UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING:
    'Leads are available only for businesses with an active advertising program; the operator (or your advertising integration) starts one.',
  NOT_AUTHORIZED:
    'The lead refuses this change: it was already marked as replied, or the consumer blocked the business or archived the project.',
  DATE_TIME_VALIDATION_ERROR: 'Dates are YYYY-MM-DD and times HH:MM (24-hour), in the restaurant’s local time.',
  TOO_SMALL_VALIDATION_ERROR: 'A number is below its minimum (covers start at 1).',
  TOO_LARGE_VALIDATION_ERROR: 'A number is above its maximum (or is not a finite number at all).',
  COVERS_VALUE_OUT_OF_RANGE:
    'The party size is outside what this restaurant takes online; openings with `covers_range=true` answer the range.',
  INVALID_DATE_TIME_RANGE: 'The date and time are in the past, or beyond how far ahead the restaurant books; the description says which.',
  INVALID_RESERVATION_PARAMETER:
    'A reservation parameter is wrong or sent the wrong way: holds and reservations take a form body, not the query string.',
  INVALID_HOLD_ID: 'The hold_id is not one pbs issued (wrong shape). Use the hold_id from the holds answer.',
  RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS:
    'The reservation must repeat the hold’s date, time and covers exactly; the description says what the hold was for.',
  CREDIT_CARD_REQUIRED: 'This slot needs a card: send the guest to the `url` that openings gave for the time instead of calling holds.',
  BUSINESS_NOT_FOUND: 'No business with this id or alias (or it is closed for good). Business Match finds ids from names and addresses.',
  DOES_NOT_TAKE_RESERVATIONS:
    'The business exists but takes no reservations through pbs; search with attributes=reservation lists those that do.',
  HOLD_NOT_FOUND:
    'The hold expired or was used: holds last five minutes and make one reservation. Hold again, then reserve within five minutes.',
  HOLD_SLOT_NOT_AVAILABLE: 'The time was taken (or is not offered) since openings answered; read openings again and hold another time.',
  RESERVATION_SLOT_NO_LONGER_AVAILABLE: 'The held table went to another booking; hold again.',
  DUPLICATE_RESERVATION:
    'This guest (unique_id) already has a booking at this restaurant within 3 hours of this one; show it instead of booking again.',
  INVALID_RESERVATION_ID: 'The reservation id is not one pbs issued to this partner.',
  RESERVATION_CANCELED: 'The reservation was canceled (by the guest or the restaurant); its status says by whom.',
  RESERVATION_ALREADY_CANCELED: 'The reservation is canceled already; nothing to do.',
  RESERVATION_CANCEL_CONFLICT: 'Past the restaurant’s cancellation cutoff: the guest must call the restaurant.',
  CONFLICT: 'The state moved on: e.g. nine parties are already on their way, or the visit is no longer where the call expects it.',
  ALREADY_IN_LINE: 'This phone number already has an active visit here; read that visit instead of joining again.',
  INVALID_ETA: 'arrival_range_min and arrival_range_max must be 0 to 30 minutes, min not above max.',
  CURRENTLY_HAS_WAIT: 'On-my-way visits are for restaurants without a wait; join the waitlist instead.',
  CURRENTLY_NO_WAIT: 'There is no wait to join right now; the guest can walk in or announce being on the way.',
  PARTY_SIZE_TOO_LARGE: 'The party is larger than the restaurant takes in line (info answers max_party_size).',
  RESTAURANT_NOT_OPEN: 'The restaurant is closed now (outside its waitlist hours, or closed by its host); status says when and why.',
  REMOTE_ENTRY_DENIED: 'The restaurant does not take remote entries at the moment.',
  SCHEDULE_CONFLICT: 'This phone number is already in line at another restaurant; a guest waits in one line at a time.',
  INVALID_SEATING_PREFERENCE: 'The seating area is not one this restaurant offers; info lists its seating areas.',
  VISIT_ALREADY_IN_TERMINAL_STATE: 'The visit ended (seated, canceled, no-show or expired); nothing more can change.',
  QUOTA_EXCEEDED:
    'A quota is full: subscriptions (pbs sets none by default) or live fault rules (100 a partner); remove some, or ask the operator.',
};

/** The hint of errors a partner's own fault rule answered, whatever their code: no failure of pbs, nothing ran. */
export const INJECTED_HINT =
  'Injected by your own fault rule (sandbox faults on demand), not a failure of pbs: the operation did not run. Remove the rule, or let it run out, to get the API’s answers again.';
