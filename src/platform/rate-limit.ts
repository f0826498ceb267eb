import type { Clock } from './clock.js';
import { toIsoOffset } from './clock.js';
import { apiError } from './errors.js';

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
 * Per-partner, per-interface limits as facts.md §1.3 describes: a queries-per-second limit
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
