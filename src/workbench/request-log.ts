import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { RequestRecord, RequestRecorder } from '../platform/http/request-recording.js';
import { insertEntries } from './request-log-statements.js';
import { ensureLogFileTable } from './request-log-tables.js';
import { errorHints } from './error-hints.js';
import { isErrorCode } from '../platform/errors.js';

import { errorCodeOf, keptQuery, keptRequestBody, keptResponseBody } from './redaction.js';
import { RequestLogStore, type NewRequestLogRow, type RequestLogFilter, type RequestLogRow } from './request-log-store.js';

/** A webhook event a request caused, with its deliveries (docs/request-log.md "Links"). */
export interface CausedEvent {
  event_id: string;
  event_type: string;
  business_id: string;
  occurred_at: string;
  message_id: string;
  deliveries: Array<{ id: string; partner_id: string; status: string; attempts: number; last_status_code: number | null }>;
}

/** The events a request caused, with only `partnerId`'s deliveries when given; supplied by the webhooks family. */
export type CausedLookup = (requestId: string, partnerId?: string) => Promise<CausedEvent[]>;

/** At most this many records wait in memory; past it new ones are counted and dropped (the database is behind). */
const MAX_WAITING = 20_000;

/**
 * The request log (docs/request-log.md): every partner request and its answer, handed over by
 * the HTTP layer as raw references, made into rows off the request path (redacted, masked,
 * capped) and written in batches. Each process writes its own; all read the same table.
 */
export class RequestLog implements RequestRecorder {
  private waiting: RequestRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** SQLite: the table in the log file, made once per process (`ensureLogFileTable`). */
  private tableReady: Promise<void> | undefined;
  /** Records dropped because too many waited (reported by the operator's listing). */
  dropped = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: Config['requestLog'],
    private readonly onError: (error: unknown) => void = () => {},
    private readonly causedBy: CausedLookup = async () => [],
  ) {}

  store() {
    return new RequestLogStore(this.database.db);
  }

  /** Called by the HTTP layer once an answer is sent: costs a push. */
  record(record: RequestRecord): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.dropped++;
      return;
    }
    this.waiting.push(record);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, this.options.flushMs);
    this.timer.unref?.();
  }

  /** Writes what waits (tests call it instead of waiting for the timer). */
  async flush(): Promise<void> {
    await this.ready();
    while (this.flushing) await this.flushing;
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    const rows = batch.map((r) => this.rowOf(r));
    this.flushing = this.database
      .transact((trx) => insertEntries(trx, this.database.dialect, rows))
      .finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  async list(filter: RequestLogFilter) {
    await this.flush();
    return (await this.store().list(filter)).map(entryView);
  }

  /** One entry whole, with the webhook events it caused; `viewer`: only if it is that partner's (and only its deliveries). */
  async entry(id: number, viewer?: string) {
    await this.flush();
    const row = await this.store().one(id);
    if (!row || (viewer !== undefined && row.partner_id !== viewer)) return undefined;
    return {
      ...entryView(row),
      request_body: row.request_body,
      response_body: row.response_body,
      caused: await this.causedBy(row.request_id, viewer),
    };
  }

  /** Errors over a period, grouped by code and operation, each with its hint (docs/request-log.md "Errors explained"). */
  async errorGroups(filter: { partnerId?: string; from?: number; to?: number }) {
    await this.flush();
    return (await this.store().errorGroups(filter)).map((g) => ({
      error_code: g.error_code ?? '',
      operation: g.operation,
      status: Number(g.status),
      count: Number(g.count),
      first_seen: toIso(Number(g.first_at)),
      last_seen: toIso(Number(g.last_at)),
      hint: isErrorCode(g.error_code) ? errorHints[g.error_code] : null,
    }));
  }

  /** Drops entries past their age and past each partner's row budget; answers how many went. */
  async purge(): Promise<number> {
    await this.ready();
    const store = this.store();
    let purged = await store.purgeOlderThan(this.clock.now() - this.options.retentionHours * 3_600_000);
    for (const partnerId of await store.partnersOver(this.options.maxRowsPerPartner))
      purged += await store.keepNewest(partnerId, this.options.maxRowsPerPartner);
    return purged;
  }

  private ready(): Promise<void> {
    if (this.database.dialect !== 'sqlite') return Promise.resolve();
    this.tableReady ??= ensureLogFileTable(this.database.db).catch((error: unknown) => {
      this.tableReady = undefined;
      throw error;
    });
    return this.tableReady;
  }

  private rowOf(r: RequestRecord): NewRequestLogRow {
    const full = this.options.fullBodies;
    const at = r.url.indexOf('?');
    const request = keptRequestBody(r.requestBody, full);
    const response = keptResponseBody(r.responseBody, full);
    return {
      at: r.at,
      partner_id: r.partnerId ?? null,
      credential_kind: r.credentialKind ?? null,
      credential_id: r.credentialId ?? null,
      interface: r.interface,
      operation: r.operation,
      method: r.method,
      path: at < 0 ? r.url : r.url.slice(0, at),
      query: at < 0 ? '' : keptQuery(r.url.slice(at + 1), full),
      status: r.status,
      error_code: r.status >= 400 ? errorCodeOf(r.responseBody) : null,
      duration_ms: Math.round(r.durationMs * 100) / 100,
      request_id: r.requestId,
      idempotency_key: r.idempotencyKey ?? null,
      client_address: r.clientAddress,
      request_body: request.text,
      response_body: response.text,
      bodies_cut: request.cut || response.cut ? 1 : 0,
      fault_rule: r.faultRule ?? null,
    };
  }
}

/** An entry as listings show it (no bodies). */
export function entryView(row: Omit<RequestLogRow, 'request_body' | 'response_body'>) {
  return {
    id: Number(row.id),
    at: toIso(Number(row.at)),
    partner_id: row.partner_id,
    credential: row.credential_kind === null ? null : { kind: row.credential_kind, id: row.credential_id },
    interface: row.interface,
    operation: row.operation,
    method: row.method,
    path: row.path,
    query: row.query,
    status: row.status,
    error_code: row.error_code,
    duration_ms: row.duration_ms,
    request_id: row.request_id,
    idempotency_key: row.idempotency_key,
    client_address: row.client_address,
    bodies_cut: row.bodies_cut === 1,
    fault_rule: row.fault_rule,
  };
}
