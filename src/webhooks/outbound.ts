/** How a failed outbound request is described in an endpoint's state or an attempt record. */
export function describeRequestFailure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs / 1000} seconds`;
  }
  return `request failed: ${e.code ?? e.message ?? 'unknown error'}`;
}
