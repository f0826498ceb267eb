import type { Clock } from './clock.js';
import { toIsoOffset } from './clock.js';
import { apiError } from './errors.js';
import { BoundedMap } from './bounded-map.js';

export interface Limits {
  perSecond: number;
  perDay: number;
}

interface Counter {
  second: number;
  secondCount: number;
  day: number;
  dayCount: number;
}

const DAY_MS = 86_400_000;

/**
 * Per-partner, per-interface limits as docs/contract/common.md §1.3 describes: a queries-per-second limit
 * (429 TOO_MANY_REQUESTS_PER_SECOND) and a daily budget reset at midnight UTC
 * (429 ACCESS_LIMIT_REACHED), reported on every response in `RateLimit-*` headers.
 * The per-second window follows the wall clock (it is about load, and must keep moving when the
 * sandbox clock is frozen); the daily budget follows the pbs clock, so moving the sandbox clock
 * past midnight UTC resets it. Counters live in the process: with several processes each
 * enforces its own share.
 */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private resetTime = { day: -1, text: '' };

  constructor(
    private readonly clock: Clock,
    private readonly wallNow: () => number = Date.now,
  ) {}

  /** Counts one request; throws the 429 error (with headers) when a limit is exceeded. */
  take(key: string, limits: Limits): Record<string, string> {
    const second = Math.floor(this.wallNow() / 1000);
    const day = Math.floor(this.clock.now() / DAY_MS);
    let counter = this.counters.get(key);
    if (!counter) {
      counter = { second, secondCount: 0, day, dayCount: 0 };
      this.counters.set(key, counter);
    }
    if (counter.second !== second) {
      counter.second = second;
      counter.secondCount = 0;
    }
    if (counter.day !== day) {
      counter.day = day;
      counter.dayCount = 0;
    }
    const headers = (used: number) => ({
      'ratelimit-dailylimit': String(limits.perDay),
      'ratelimit-remaining': String(Math.max(0, limits.perDay - used)),
      'ratelimit-resettime': this.resetTimeOf(day),
    });
    if (counter.dayCount >= limits.perDay) {
      throw apiError('ACCESS_LIMIT_REACHED', undefined, { headers: headers(counter.dayCount) });
    }
    if (counter.secondCount >= limits.perSecond) {
      throw apiError('TOO_MANY_REQUESTS_PER_SECOND', undefined, {
        headers: { ...headers(counter.dayCount), 'retry-after': '1' },
      });
    }
    counter.secondCount += 1;
    counter.dayCount += 1;
    return headers(counter.dayCount);
  }

  /** The next midnight UTC, formatted once per day rather than per request. */
  private resetTimeOf(day: number): string {
    if (this.resetTime.day !== day) this.resetTime = { day, text: toIsoOffset((day + 1) * DAY_MS) };
    return this.resetTime.text;
  }

  reset(): void {
    this.counters.clear();
  }
}

/**
 * Token buckets per key (a client address) on the wall clock: `perSecond` tokens a second, at
 * most `burst` saved up. For routes anyone may call, where there is no partner to count against.
 */
export class TokenBuckets {
  /** Bounded: a flood of addresses forgets the quiet ones rather than grow without end. */
  private readonly buckets = new BoundedMap<string, { tokens: number; at: number }>(50_000);

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly wallNow: () => number = Date.now,
  ) {}

  /** 0 when a token was taken; otherwise the seconds until one will be there. */
  take(key: string): number {
    const now = this.wallNow();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}

/**
 * Failed authentications per key (a client address with the identity it claimed) in a sliding
 * minute: past `perMinute` failures, `waitFor` says how long until the oldest is a minute old.
 */
export class FailureThrottle {
  private readonly failures = new BoundedMap<string, number[]>(50_000);

  constructor(
    private readonly perMinute: number,
    private readonly wallNow: () => number = Date.now,
  ) {}

  /** Seconds the key must wait before it may try again; 0 when it may try now. */
  waitFor(key: string): number {
    const recent = this.recent(key, this.wallNow());
    if (recent.length < this.perMinute) return 0;
    return Math.max(1, Math.ceil((recent[0] + 60_000 - this.wallNow()) / 1000));
  }

  fail(key: string): void {
    const now = this.wallNow();
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent.slice(-this.perMinute));
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - 60_000);
  }
}

/** The 429 a throttled client gets (the original's per-second code, so clients back off as they know how). */
export function throttled(seconds: number, description: string) {
  return apiError('TOO_MANY_REQUESTS_PER_SECOND', description, { headers: { 'retry-after': String(seconds) } });
}
