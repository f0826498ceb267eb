import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DatabaseLocation } from '../platform/db/database.js';
import type { RequestRecord } from '../platform/http/request-recording.js';
import type { WriterAnswer, WriterBatch, WriterSetup } from './request-log-worker.js';

/**
 * The worker's module beside this one: `.js` when pbs runs built; `.ts` when it runs from its
 * sources (tests, `tsx src/main.ts`), where the worker loads them the same way, through tsx.
 */
const extension = path.extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./request-log-worker${extension}`, import.meta.url);
const FROM_SOURCES = extension === '.ts';

/**
 * The main thread's side of the request log's writer thread (request-log-worker.ts): hands it
 * each batch of records and settles when the batch is committed. The records are copied to the
 * thread (structured clone), so what they reference may change afterwards.
 */
export class RequestLogThread {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly settling = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  /** Set once the thread has ended; batches are refused from then on. */
  private ended: Error | undefined;

  /** `onEnded`: told when the thread ends by itself (a crash); the request log then writes on the main thread. */
  constructor(
    location: DatabaseLocation,
    fullBodies: boolean,
    private readonly onEnded: (error: Error) => void,
  ) {
    const workerData: WriterSetup = { location, fullBodies };
    this.worker = FROM_SOURCES
      ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); })`, {
          eval: true,
          workerData,
        })
      : new Worker(WORKER_URL, { workerData });
    // The thread alone does not keep the process alive; the request log closes it on shutdown.
    this.worker.unref();
    this.worker.on('message', (answer: WriterAnswer) => {
      const waiting = this.settling.get(answer.id);
      this.settling.delete(answer.id);
      if (answer.error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(`request log writer: ${answer.error}`));
    });
    this.worker.on('error', (error) => this.end(error));
    this.worker.on('exit', (code) => this.end(new Error(`request log writer ended (exit code ${code})`)));
  }

  /**
   * Writes `records` (whose answers it turns into text), settling once they are committed; undefined when the thread cannot take
   * them (it has ended, or a body is not copyable), and the caller writes them itself.
   */
  write(records: RequestRecord[]): Promise<void> | undefined {
    if (this.ended) return undefined;
    // An answer's bytes are often a view of a large shared slab (platform/byte-writer.ts), and a
    // structured clone copies a view's whole buffer: as text, only the answer is copied.
    for (const record of records) if (Buffer.isBuffer(record.responseBody)) record.responseBody = record.responseBody.toString('utf8');
    const batch: WriterBatch = { id: this.nextId++, records };
    try {
      this.worker.postMessage(batch);
    } catch {
      return undefined;
    }
    return new Promise<void>((resolve, reject) => this.settling.set(batch.id, { resolve, reject }));
  }

  /** Ends the thread (the request log has flushed: no batch is in flight). */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = new Error('request log writer closed');
    await this.worker.terminate();
  }

  private end(error: Error) {
    if (this.ended === undefined) this.onEnded(error);
    this.ended ??= error;
    for (const waiting of this.settling.values()) waiting.reject(this.ended);
    this.settling.clear();
  }
}
