import type { ErrorCode } from './error-codes.js';

export { errorCatalogue, type ErrorCode } from './error-codes.js';

/** The body of every pbs error (docs/contract/common.md §1.1): `{"error": {"code", "description", …}}`. */
export interface ErrorBody {
  error: { code: string; description: string; field?: string | null; instance?: unknown };
}

/**
 * A non-2xx answer from pbs. `code` is one of the catalogue's codes (`ErrorCode`) when pbs sent
 * one; an answer without a pbs body (a proxy's 502, say) gets the catalogue's code for its status.
 */
export class PbsError extends Error {
  override readonly name = 'PbsError';
  readonly code: ErrorCode;
  readonly description: string;
  readonly field: string | null | undefined;
  readonly instance: unknown;
  /** pbs's `X-Request-Id`, to quote to the operator. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    body: unknown,
    readonly method: string,
    readonly url: string,
    headers: Headers,
  ) {
    const error = (body as Partial<ErrorBody> | undefined)?.error;
    const code = (typeof error?.code === 'string' ? error.code : codeForStatus(status)) as ErrorCode;
    const description = typeof error?.description === 'string' ? error.description : `HTTP ${status}`;
    super(`${method} ${new URL(url).pathname}: ${status} ${code}: ${description}`);
    this.code = code;
    this.description = description;
    this.field = error?.field;
    this.instance = error?.instance;
    this.requestId = headers.get('x-request-id') ?? undefined;
    this.retryAfterSeconds = retryAfterSeconds(headers.get('retry-after'), Date.now());
  }
}

/** True when `error` is a PbsError, and (given `code`) has that code. */
export function isPbsError(error: unknown, code?: ErrorCode): error is PbsError {
  return error instanceof PbsError && (code === undefined || error.code === code);
}

function codeForStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = {
    401: 'TOKEN_INVALID',
    403: 'AUTHORIZATION_ERROR',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    429: 'TOO_MANY_REQUESTS_PER_SECOND',
    503: 'SERVICE_UNAVAILABLE',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
