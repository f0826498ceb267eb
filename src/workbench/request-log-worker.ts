/**
 * The request log's writer thread (docs/request-log.md "How it is written"): it receives the
 * bytes of a batch's records, makes them into rows (redacted, masked, capped) and writes them on a
 * connection of its own, so neither the redaction nor the rows' bytes reaching the database cost
 * the thread that answers requests. Started by RequestLogThread (request-log-thread.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { useLogFileSettings, WAL_CHECKPOINT_BYTES, type DatabaseLocation } from '../platform/db/database.js';
import { decodeRecords, type RecordChunks } from './request-log-buffer.js';
import { REQUEST_LOG_COLUMNS } from './request-log-statements.js';
import { rowOf, writeRows } from './request-log-rows.js';
import type { NewRequestLogRow } from './request-log-store.js';
import { isOutage } from '../platform/db/availability.js';
import { postgresPlaceholders } from '../platform/db/raw.js';
import type { ObservedCall } from '../readiness/readiness-judge.js';
import {
  loadParameter,
  partnersOf,
  progressAfter,
  READINESS_TABLE_IN_LOG_FILE,
  storedRows,
  TRACK_SQL,
  type StoredProgress,
} from '../readiness/readiness-tracker.js';
import { messageOf } from '../platform/values.js';

export interface WriterSetup {
  location: DatabaseLocation;
  fullBodies: boolean;
  /** Whether each batch also keeps its partners' readiness (readiness-tracker.ts), in its transaction. */
  readiness: boolean;
}

/** A batch to write (its records' bytes, request-log-buffer.ts), and the answer once it is committed (or why not). */
export interface WriterBatch {
  id: number;
  chunks: RecordChunks;
}
export interface WriterAnswer {
  id: number;
  /** Entries of the batch not written (a row the database refused, or all of them when it could not be reached). */
  dropped: number;
  /** Why the batch could not be written at all. */
  error?: string;
  /** Whether that was the database being away (said once by its availability, not per batch). */
  outage?: boolean;
  /** The batch's chunks, given back to be written again (RecordBuffer.recycle). */
  buffers: ArrayBuffer[];
}

/** Writes rows (and, given `calls`, their partners' readiness), answering how many it could not (see writeRows). */
type Write = (rows: NewRequestLogRow[], calls: readonly ObservedCall[]) => Promise<number>;

/**
 * Rows a statement inserts. Many rows a statement cost each row less than one each (measured on
 * SQLite: 14 against 19.5 µs a row of openings' size); the statement for a full chunk is
 * prepared once, a last, shorter chunk gets its own.
 */
const CHUNK = 50;
const WIDTH = REQUEST_LOG_COLUMNS.length;

/** `insert … values (…), (…)` for `rows` rows; `placeholder(i)` names the i-th parameter (0-based). */
function insertText(rows: number, placeholder: (i: number) => string): string {
  const tuples = Array.from({ length: rows }, (_, r) => `(${REQUEST_LOG_COLUMNS.map((_, c) => placeholder(r * WIDTH + c)).join(', ')})`);
  return `insert into request_log (${REQUEST_LOG_COLUMNS.join(', ')}) values ${tuples.join(', ')}`;
}

/** The rows in chunks, each as one flat list of parameters. */
function* chunks(rows: NewRequestLogRow[]): Generator<unknown[]> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values: unknown[] = [];
    for (const row of rows.slice(i, i + CHUNK)) for (const column of REQUEST_LOG_COLUMNS) values.push(row[column] ?? null);
    yield values;
  }
}

function sqliteWriter(logFile: string): Write {
  const sqlite = new SqliteDatabase(logFile);
  useLogFileSettings(sqlite, '');
  // Cast: a simple pragma answers its one value; page_size is a number.
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_BYTES / (sqlite.pragma('page_size', { simple: true }) as number)}`);
  const full = sqlite.prepare(insertText(CHUNK, () => '?'));
  const one = sqlite.prepare(insertText(1, () => '?'));
  sqlite.exec(READINESS_TABLE_IN_LOG_FILE);
  const load = sqlite.prepare(TRACK_SQL.sqliteLoad);
  const save = sqlite.prepare(TRACK_SQL.save);
  // eslint-disable-next-line no-restricted-syntax -- the thread's own connection to the log file: no Database, no commits to group with.
  const all = sqlite.transaction((rows: NewRequestLogRow[], calls: readonly ObservedCall[]) => {
    for (const values of chunks(rows))
      (values.length === CHUNK * WIDTH ? full : sqlite.prepare(insertText(values.length / WIDTH, () => '?'))).run(values);
    const partners = partnersOf(calls);
    if (partners.length === 0) return;
    const stored = storedRows(load.all(loadParameter('sqlite', partners)));
    for (const parameters of progressAfter(stored, calls)) save.run(parameters);
  });
  return (rows, calls) =>
    writeRows(
      rows,
      async (batch) => all(batch, calls),
      async (row) => void one.run(valuesOf(row)),
    );
}

function postgresWriter(url: string, schema: string | undefined): Write {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    // No timers of its own: this thread runs only on idle CPU, and on a saturated machine a timer
    // would fire before the answer it waits for is read, failing a healthy connection. A database
    // that is away refuses (the batch fails and is counted); one that stalls holds this thread's
    // batch while entries wait, capped, and shutdown does not wait for it (RequestLog.close).
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection lost while idle, or between two statements of a batch (a restart of the
  // server), must not end the thread; the next batch connects again.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const dollar = (i: number) => `$${i + 1}`;
  const readinessSql = {
    seed: postgresPlaceholders(TRACK_SQL.postgresSeed),
    load: postgresPlaceholders(TRACK_SQL.postgresLoad),
    save: postgresPlaceholders(TRACK_SQL.save),
  };
  const full = insertText(CHUNK, dollar);
  const one = insertText(1, dollar);
  // Plain statements with flat parameters: building them through Kysely's query builder cost
  // this thread more than the rows.
  const all = async (rows: NewRequestLogRow[], calls: readonly ObservedCall[]) => {
    const client = await pool.connect();
    let failure: unknown;
    try {
      await client.query('begin');
      // The commit does not wait for the WAL flush, as the SQLite log file skips fsync: a crash
      // may lose the last entries, never other data.
      await client.query('set local synchronous_commit = off');
      for (const values of chunks(rows))
        await client.query(
          values.length === CHUNK * WIDTH
            ? { name: 'pbs_request_log_chunk', text: full, values }
            : { text: insertText(values.length / WIDTH, dollar), values },
        );
      const partners = partnersOf(calls);
      if (partners.length > 0) {
        await client.query({ name: 'pbs_readiness_seed', text: readinessSql.seed, values: [partners] });
        const stored = await client.query<StoredProgress>({
          name: 'pbs_readiness_load',
          text: readinessSql.load,
          values: [partners],
        });
        for (const values of progressAfter(stored.rows, calls))
          await client.query({ name: 'pbs_readiness_save', text: readinessSql.save, values });
      }
      await client.query('commit');
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // A failed batch's connection is let go rather than rolled back: it may be the one that
      // stalled or broke, and a new one costs little beside a failed batch.
      client.release(failure !== undefined);
    }
  };
  return (rows, calls) =>
    writeRows(
      rows,
      (batch) => all(batch, calls),
      async (row) => {
        const client = await pool.connect();
        let failure: unknown;
        try {
          await client.query({ name: 'pbs_request_log_one', text: one, values: valuesOf(row) });
        } catch (error) {
          failure = error;
          throw error;
        } finally {
          client.release(failure !== undefined && isOutage(failure));
        }
      },
    );
}

function valuesOf(row: NewRequestLogRow): unknown[] {
  return REQUEST_LOG_COLUMNS.map((column) => row[column] ?? null);
}

/**
 * Linux: this thread runs only on CPU that answering requests leaves. Its policy becomes
 * SCHED_IDLE (through util-linux's `chrt`; Node has no call for it): a request's thread that
 * wakes takes the CPU from it at once, where at nice 19 alone the scheduler may let it finish a
 * slice first (kernel 6.x, EEVDF) while requests wait. Without `chrt`, nice 19. Behind, its
 * batches grow (and past the request log's cap are dropped and counted). Elsewhere, or where it
 * is refused, the thread keeps its priority.
 */
function yieldToRequests(): void {
  let thread = 0;
  try {
    thread = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    if (thread > 0) os.setPriority(thread, os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: no harm.
  }
  if (thread > 0)
    try {
      execFileSync('chrt', ['--idle', '--pid', '0', String(thread)], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      // No chrt, or not allowed: nice 19 stays.
    }
}

const port = parentPort;
if (port) {
  yieldToRequests();
  // Cast: workerData is what RequestLogThread started this thread with, a WriterSetup.
  const { location, fullBodies, readiness } = workerData as WriterSetup;
  const write = location.dialect === 'sqlite' ? sqliteWriter(location.logFile) : postgresWriter(location.url, location.schema);
  // One batch at a time, in the order sent: entries' ids follow the order requests were answered.
  let queue = Promise.resolve();
  port.on('message', (batch: WriterBatch) => {
    queue = queue.then(async () => {
      const buffers = batch.chunks.buffers;
      let answer: WriterAnswer;
      try {
        // Decoded, the records are strings of their own: the chunks go back with the answer.
        const records = decodeRecords(batch.chunks);
        const dropped = await write(
          records.map((record) => rowOf(record, fullBodies)),
          readiness ? records : [],
        );
        answer = { id: batch.id, dropped, buffers };
      } catch (error) {
        answer = { id: batch.id, dropped: batch.chunks.count, error: messageOf(error), outage: isOutage(error), buffers };
      }
      port.postMessage(answer, buffers);
    });
  });
}
