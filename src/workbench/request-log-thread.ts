import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DatabaseLocation } from '../platform/db/database.js';
import { DatabaseUnavailableError } from '../platform/db/availability.js';
import type { RecordChunks } from './request-log-buffer.js';
import type { WriterAnswer, WriterBatch, WriterSetup } from './request-log-worker.js';

/**
 * The worker's module beside this one: `.js` when pbs runs built; `.ts` when it runs from its
 * sources (tests, `tsx src/main.ts`), where the worker loads them the same way, through tsx.
 */
const extension = path.extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./request-log-worker${extension}`, import.meta.url);
const FROM_SOURCES = extension === '.ts';

/** A batch the thread committed: its chunks given back, and how many of its entries the database refused. */
export interface WrittenBatch {
  buffers: ArrayBuffer[];
  dropped: number;
}

/**
 * The main thread's side of the request log's writer thread (request-log-worker.ts): hands it
 * each batch of records and settles when the batch is committed. A batch's memory moves to the
 * thread (a transfer): the main thread no longer holds it.
 */
export class RequestLogThread {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly settling = new Map<number, { resolve: (written: WrittenBatch) => void; reject: (error: Error) => void }>();
  /** Set once the thread has ended; batches are refused from then on. */
  private ended: Error | undefined;

  /** `onEnded`: told when the thread ends by itself (a crash); the request log then writes on the main thread. */
  constructor(
    location: DatabaseLocation,
    options: { fullBodies: boolean; readiness: boolean },
    private readonly onEnded: (error: Error) => void,
  ) {
    const workerData: WriterSetup = { location, ...options };
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
      if (answer.error === undefined) waiting?.resolve({ buffers: answer.buffers, dropped: answer.dropped });
      else {
        const message = `request log writer: ${answer.error}`;
        waiting?.reject(answer.outage ? new DatabaseUnavailableError(message) : new Error(message));
      }
    });
    this.worker.on('error', (error) => this.end(error));
    this.worker.on('exit', (code) => this.end(new Error(`request log writer ended (exit code ${code})`)));
  }

  /**
   * Writes the batch, settling once it is committed with its chunks given back; undefined when
   * the thread cannot take it (it has ended), and the caller writes it itself.
   */
  write(chunks: RecordChunks): Promise<WrittenBatch> | undefined {
    if (this.ended) return undefined;
    const batch: WriterBatch = { id: this.nextId++, chunks };
    try {
      this.worker.postMessage(batch, chunks.buffers);
    } catch {
      return undefined;
    }
    return new Promise<WrittenBatch>((resolve, reject) => this.settling.set(batch.id, { resolve, reject }));
  }

  /** Ends the thread (the request log has flushed: no batch is in flight). */
  /**
   * Ends the thread. A batch it still holds is refused at once (its promise rejects), without
   * waiting for the thread to get the CPU to finish or to end: running only on idle CPU, on a
   * saturated machine it may get none for a while. The promise settles when the thread is gone.
   */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = new Error('request log writer closed');
    for (const waiting of this.settling.values()) waiting.reject(this.ended);
    this.settling.clear();
    await this.worker.terminate();
  }

  private end(error: Error) {
    if (this.ended === undefined) this.onEnded(error);
    this.ended ??= error;
    for (const waiting of this.settling.values()) waiting.reject(this.ended);
    this.settling.clear();
  }
}
