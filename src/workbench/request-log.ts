import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/database.js';
import type { RequestRecord, RequestRecorder } from '../platform/http/request-recording.js';
import { insertEntries } from './request-log-statements.js';
import { ensureLogFileTable } from './request-log-tables.js';
import { errorHints, INJECTED_HINT } from './error-hints.js';
import { isErrorCode } from '../platform/errors.js';

import { RecordBuffer, decodeRecords, type RecordChunks } from './request-log-buffer.js';
import { rowOf, writeRows } from './request-log-rows.js';
import { RequestLogStore, type RequestLogFilter, type RequestLogRow } from './request-log-store.js';
import { RequestLogThread } from './request-log-thread.js';
import { ensureReadinessTable, trackOn } from '../readiness/readiness-tracker.js';

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

/**
 * At most this many records, and this many of their bytes, wait in memory; past either, new ones
 * are counted and dropped (the database is behind).
 */
const MAX_WAITING = 20_000;
const MAX_WAITING_BYTES = 64 * 1024 * 1024;
/** How long `close` waits for the writer thread's batch under way (a shutdown's grace is 10 s). */
const WRITER_CLOSE_WAIT_MS = 1000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The request log (docs/request-log.md): every partner request and its answer, handed over by
 * the HTTP layer and kept as bytes at once (request-log-buffer.ts), and written in batches by a
 * thread of its own, which makes them into rows (redacted, masked, capped) on a connection of
 * its own. Each process writes its own; all read the same table. Where no other connection can
 * reach the database (SQLite in memory) or `PBS_REQUEST_LOG_WRITER=inline`, the main thread
 * writes them itself.
 */
export class RequestLog implements RequestRecorder {
  private readonly waiting = new RecordBuffer();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** SQLite: the table in the log file, made once per process (`ensureLogFileTable`). */
  private tableReady: Promise<void> | undefined;
  /** Records dropped because too many waited (reported by the operator's listing). */
  dropped = 0;
  /** Whether the last batch went to the writer thread (or was written on the main thread). */
  writtenOnThread = false;
  /** The writer thread, started with the first batch. */
  private thread: RequestLogThread | undefined;
  /** Set by `close`: what is left is written on the main thread. */
  private closing = false;

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

  /** Called by the HTTP layer once an answer is sent: costs writing its bytes. */
  record(record: RequestRecord): void {
    if (this.waiting.count >= MAX_WAITING || this.waiting.bytes >= MAX_WAITING_BYTES) {
      this.dropped++;
      return;
    }
    this.waiting.append(record);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(this.onError);
    }, this.options.flushMs);
    this.timer.unref?.();
  }

  /** Writes what waits (tests call it instead of waiting for the timer). */
  async flush(): Promise<void> {
    await this.ready();
    // A batch under way: its failure is its own flush's to report.
    while (this.flushing) await this.flushing.catch(() => {});
    if (this.waiting.count === 0) return;
    const batch = this.waiting.take();
    const onThread = this.writerThread()?.write(batch);
    this.writtenOnThread = onThread !== undefined;
    const written =
      onThread?.then(({ buffers, dropped }) => {
        this.waiting.recycle(buffers);
        this.dropped += dropped;
      }) ?? this.writeHere(batch);
    this.flushing = written
      .catch((error: unknown) => {
        // Not written at all (the database away): its entries are counted as dropped.
        this.dropped += batch.count;
        throw error;
      })
      .finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /**
   * Writes what waits and ends the writer thread, within a bounded time: the thread runs only on
   * CPU nothing else wants, so on a saturated machine it may not finish a batch before a shutdown's
   * grace runs out. Its batch under way gets WRITER_CLOSE_WAIT_MS; then the thread is ended (that
   * batch counted as dropped) and what still waits is written here, on the main thread.
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.closing = true;
    if (this.flushing) await Promise.race([this.flushing.catch(() => {}), delay(WRITER_CLOSE_WAIT_MS)]);
    const ended = this.thread?.close();
    await this.flush().catch(this.onError);
    if (ended) await Promise.race([ended, delay(WRITER_CLOSE_WAIT_MS)]);
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
      injected: Number(g.injected) === 1,
      hint: Number(g.injected) === 1 ? INJECTED_HINT : isErrorCode(g.error_code) ? errorHints[g.error_code] : null,
    }));
  }

  /** Drops entries past their age and past each partner's row budget; answers how many went. */
  async purge(): Promise<number> {
    await this.ready();
    const store = this.store();
    let purged = await store.purgeOlderThan(this.clock.now() - this.options.retentionHours * 3_600_000);
    for (const partnerId of await store.partnersOver(this.options.maxRowsPerPartner))
      purged += await store.keepNewest(partnerId, this.options.maxRowsPerPartner);
    if (purged > 0 && this.database.dialect === 'sqlite') await store.checkpointLogFile();
    return purged;
  }

  private ready(): Promise<void> {
    if (this.database.dialect !== 'sqlite') return Promise.resolve();
    const db = this.database.db;
    this.tableReady ??= Promise.all([ensureLogFileTable(db), ensureReadinessTable(db)]).then(
      () => undefined,
      (error: unknown) => {
        this.tableReady = undefined;
        throw error;
      },
    );
    return this.tableReady;
  }

  private writerThread(): RequestLogThread | undefined {
    const location = this.database.location;
    if (this.options.writer !== 'thread' || !location || this.closing) return undefined;
    this.thread ??= new RequestLogThread(
      location,
      { fullBodies: this.options.fullBodies, readiness: this.options.readiness },
      this.onError,
    );
    return this.thread;
  }

  private async writeHere(batch: RecordChunks): Promise<void> {
    const records = decodeRecords(batch);
    const rows = records.map((record) => rowOf(record, this.options.fullBodies));
    this.waiting.recycle(batch.buffers);
    const { dialect } = this.database;
    this.dropped += await writeRows(
      rows,
      (all) =>
        this.database.transact(async (trx) => {
          await insertEntries(trx, dialect, all);
          if (this.options.readiness) await trackOn(trx, dialect, records);
        }),
      (one) => this.database.transact((trx) => insertEntries(trx, dialect, [one])),
    );
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
    injected: row.fault_rule !== null && row.status >= 400,
  };
}
