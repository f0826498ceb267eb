import type { DecodedRecord } from './request-log-buffer.js';
import { errorCodeOf, keptQuery, keptRequestBody, keptResponseBody } from './redaction.js';
import type { NewRequestLogRow } from './request-log-store.js';
import { isOutage } from '../platform/db/availability.js';

/**
 * A request as the log keeps it (docs/request-log.md "What is kept"): secrets redacted, guest
 * data masked unless `fullBodies`, bodies capped. Pure, so the writer thread and the main thread
 * make the same rows.
 */
export function rowOf(r: DecodedRecord, fullBodies: boolean): NewRequestLogRow {
  const at = r.url.indexOf('?');
  const request = keptRequestBody(r.requestBody, fullBodies);
  const response = keptResponseBody(r.responseBody, fullBodies);
  return {
    at: r.at,
    partner_id: r.partnerId ?? null,
    credential_kind: r.credentialKind ?? null,
    credential_id: r.credentialId ?? null,
    interface: r.interface,
    operation: r.operation,
    method: r.method,
    path: at < 0 ? r.url : r.url.slice(0, at),
    query: at < 0 ? '' : keptQuery(r.url.slice(at + 1), fullBodies),
    status: r.status,
    error_code: r.status >= 400 ? errorCodeOf(r.responseBody) : null,
    duration_ms: Math.round(r.durationMs * 100) / 100,
    request_id: r.requestId,
    idempotency_key: r.idempotencyKey ?? null,
    // A request whose connection was gone before it was recorded has no address (a dropped call).
    client_address: r.clientAddress ?? '',
    request_body: request.text,
    response_body: response.text,
    bodies_cut: request.cut || response.cut ? 1 : 0,
    fault_rule: r.faultRule ?? null,
  };
}

/**
 * Writes a batch whole, and when the database refuses it (a row it will not take), row by row, so
 * a bad row costs that row alone, never the other entries of its batch (other partners' among
 * them). Answers how many rows were not written. The database being away is thrown: nothing of
 * the batch can be written then.
 */
export async function writeRows(
  rows: NewRequestLogRow[],
  all: (rows: NewRequestLogRow[]) => Promise<void>,
  one: (row: NewRequestLogRow) => Promise<void>,
): Promise<number> {
  try {
    await all(rows);
    return 0;
  } catch (error) {
    if (isOutage(error)) throw error;
  }
  let dropped = 0;
  for (const row of rows) {
    try {
      await one(row);
    } catch (error) {
      if (isOutage(error)) throw error;
      dropped++;
    }
  }
  return dropped;
}
