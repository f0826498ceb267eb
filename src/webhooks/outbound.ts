import { Pool, type Dispatcher } from 'undici';
import { codeOf, messageOf, nameOf } from '../platform/values.js';

/** Raised when a receiver has not answered within the whole deadline (not just between bytes). */
export class DeadlineError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'PBS_DEADLINE';
}

/** How a failed outbound request is described in an endpoint's state or an attempt record. */
export function describeRequestFailure(error: unknown, timeoutMs: number): string {
  const code = codeOf(error);
  if (
    nameOf(error) === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no answer within ${timeoutMs / 1000} seconds`;
  }
  if (code === 'EADDRREFUSED') return `url refused: ${messageOf(error)}`;
  return `request failed: ${code ?? messageOf(error)}`;
}

/**
 * Most bytes of an answer pbs reads: the status is what counts, and a receiver must not be able
 * to make pbs read (or hold a connection for) an endless body.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What a POST answered: status, headers, and the start of the body (at most `EXCERPT_CHARS`). */
export interface PostAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  excerpt: string;
}

/** Characters of a response body kept in an attempt record. */
export const EXCERPT_CHARS = 500;
// Enough bytes for EXCERPT_CHARS characters of any UTF-8 text; the rest is read and dropped.
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

/**
 * POSTs `body` through `dispatcher` and resolves with the answer once the response has ended;
 * rejects with undici's error (refused, reset, headers or body timeout). Uses undici's dispatch
 * interface with a handler of its own: `request()` builds a response stream and an async
 * resource per call, which cost about half of a webhook POST's client CPU.
 *
 * `timeoutMs` is a deadline for the whole exchange, not only between bytes (a receiver dripping
 * a byte every few seconds once held a delivery for over a minute). An answer whose status came
 * in time counts even if its body does not finish: reading stops at the deadline or after
 * MAX_ANSWER_BYTES, and the connection is dropped.
 */
export function post(
  dispatcher: Dispatcher,
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    let answer: PostAnswer | undefined;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    let controller: { abort(reason: Error): void } | undefined;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (answer) {
        if (keptBytes > 0) answer.excerpt = Buffer.concat(kept).subarray(0, EXCERPT_BYTES).toString('utf8').slice(0, EXCERPT_CHARS);
        resolve(answer);
      } else reject(error ?? new Error('the response ended before its headers'));
    };
    const deadline = setTimeout(() => {
      const error = new DeadlineError(`no answer within ${timeoutMs / 1000} seconds`);
      finish(error);
      controller?.abort(error);
    }, timeoutMs);
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      {
        onRequestStart(c) {
          controller = c;
        },
        onResponseStart(_controller, statusCode, responseHeaders) {
          answer = { statusCode, headers: responseHeaders, excerpt: '' };
          kept.length = 0;
          keptBytes = 0;
        },
        onResponseData(c, chunk) {
          readBytes += chunk.length;
          if (keptBytes < EXCERPT_BYTES) {
            kept.push(chunk);
            keptBytes += chunk.length;
          }
          if (readBytes > MAX_ANSWER_BYTES) {
            finish();
            c.abort(new Error('answer too long; the rest is not read'));
          }
        },
        onResponseEnd() {
          finish();
        },
        onResponseError(_controller, error) {
          finish(error);
        },
      },
    );
  });
}

/** How long an origin's pool is kept without a request before it is closed. */
const IDLE_POOL_MS = 5 * 60_000;

/**
 * A keep-alive connection pool per receiving origin, each capped at `connections`. Not undici's
 * Agent: it forgets an origin's pool whenever that pool's connection count reaches zero, and its
 * count is kept per origin, so the closing pool's disconnects also close the pool that replaced
 * it; under load (after idle sockets timed out) that cascade opened hundreds of connections a
 * second. Pools here live until closed, or until unused for five minutes.
 */
export class OriginPools {
  private readonly pools = new Map<string, { pool: Pool; usedAt: number }>();
  private sweptAt = 0;

  constructor(
    private readonly options: Pool.Options,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pool for `origin` (an URL's `origin`). */
  for(origin: string): Pool {
    const at = this.now();
    let entry = this.pools.get(origin);
    if (!entry) {
      entry = { pool: new Pool(origin, this.options), usedAt: at };
      this.pools.set(origin, entry);
    }
    entry.usedAt = at;
    if (at - this.sweptAt > IDLE_POOL_MS) this.closeIdle(at);
    return entry.pool;
  }

  get size(): number {
    return this.pools.size;
  }

  /** Closes pools unused for five minutes (a closing pool still finishes what it was given). */
  private closeIdle(at: number): void {
    this.sweptAt = at;
    for (const [origin, entry] of this.pools) {
      if (at - entry.usedAt <= IDLE_POOL_MS) continue;
      this.pools.delete(origin);
      void entry.pool.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()].map((e) => e.pool);
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}
