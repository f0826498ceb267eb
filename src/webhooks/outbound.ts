import { Pool, type Dispatcher } from 'undici';

/** How a failed outbound request is described in an endpoint's state or an attempt record. */
export function describeRequestFailure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs / 1000} seconds`;
  }
  return `request failed: ${e.code ?? e.message ?? 'unknown error'}`;
}

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
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          answer = { statusCode, headers: responseHeaders, excerpt: '' };
          kept.length = 0;
          keptBytes = 0;
        },
        onResponseData(_controller, chunk) {
          if (keptBytes >= EXCERPT_BYTES) return;
          kept.push(chunk);
          keptBytes += chunk.length;
        },
        onResponseEnd() {
          if (!answer) return reject(new Error('the response ended before its headers'));
          if (keptBytes > 0) answer.excerpt = Buffer.concat(kept).subarray(0, EXCERPT_BYTES).toString('utf8').slice(0, EXCERPT_CHARS);
          resolve(answer);
        },
        onResponseError(_controller, error) {
          reject(error);
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

  constructor(private readonly options: Pool.Options, private readonly now: () => number = Date.now) {}

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
