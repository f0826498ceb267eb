import { ApiError, apiError } from '../errors.js';
import { codeOf, messageOf } from '../values.js';

/**
 * Whether this process can use its database, as it last found out:
 * - `up`: nothing says otherwise;
 * - `suspect`: a statement just failed as an outage does (below); a probe is under way, and
 *   statements still go to the database meanwhile;
 * - `down`: the probe failed too. PostgreSQL statements fail at once instead of each waiting for
 *   a connection that will not come, `/readyz` answers 503, and the probe runs again every
 *   `probeEveryMs` until it succeeds.
 * docs/security.md "When the database goes away".
 */
export type AvailabilityState = 'up' | 'suspect' | 'down';

/** Thrown instead of asking the database while it is known to be down (PostgreSQL). */
export class DatabaseUnavailableError extends Error {
  readonly code = 'PBS_DATABASE_UNAVAILABLE';
}

/** How long a partner is told to wait (`Retry-After`) when the database is away: a few probes. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The answer while the database is unreachable, stalled or out of room: come back shortly. */
export function databaseAwayError(description = 'The database is not reachable right now; retry after the Retry-After seconds.'): ApiError {
  return apiError('SERVICE_UNAVAILABLE', description, { headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) } });
}

/**
 * SQLSTATE classes and codes that say the server, not the statement, is the trouble: connection
 * exceptions (08), shutting down or starting up (57P01-57P03), statement timeout (57014: pbs sets
 * one, so a stalled server cannot hold a request forever), out of disk, memory or connections
 * (53), and the server's own I/O errors (58).
 */
const POSTGRES_OUTAGE = /^(08...|57P0[1-3]|57014|53...|58...)$/;
/** Node's socket errors on the way to the server. */
const SOCKET_OUTAGE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What `pg` says, without a code, when a connection ends, does not open in time, or a read times out. */
const PG_CLIENT_OUTAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error)/;
/**
 * SQLite: the disk is full, the file cannot be read or written, or another process held the
 * write lock past `busy_timeout`. All pass; none is the request's fault.
 */
const SQLITE_OUTAGE = /^SQLITE_(FULL|IOERR|CANTOPEN|BUSY|NOMEM|READONLY|PROTOCOL)/;

/** True when `error` says the database is unreachable, stalled or out of room rather than that a statement was wrong. */
export function isOutage(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  // A rule's refusal thrown inside a transaction: its code is the catalogue's, never the database's.
  if (error instanceof ApiError) return false;
  const code = codeOf(error);
  if (code !== undefined) {
    if (POSTGRES_OUTAGE.test(code) || SOCKET_OUTAGE.has(code) || SQLITE_OUTAGE.test(code)) return true;
  }
  return error instanceof Error && PG_CLIENT_OUTAGE.test(error.message);
}

/** Told of every change of state, with the error that caused a fall (none on the way up). */
export type AvailabilityListener = (state: AvailabilityState, cause: string | undefined, downForMs: number) => void;

export interface AvailabilityOptions {
  /** Succeeds when the database can be used again (a fresh connection and `select 1`, or a write). */
  probe: () => Promise<void>;
  /** Between failed probes. */
  probeEveryMs: number;
  /** Wall time (tests pass their own). */
  now?: () => number;
}

/**
 * This process's view of its database (see AvailabilityState). Everything that talks to the
 * database tells it of failures through `report`; it finds out on its own, by probing, when the
 * database is back, and tells listeners (readiness, the background loops, the log) of each change.
 */
export class DatabaseAvailability {
  private current: AvailabilityState = 'up';
  private cause: string | undefined;
  private since = 0;
  private probing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<AvailabilityListener>();
  private readonly now: () => number;

  constructor(private readonly options: AvailabilityOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): AvailabilityState {
    return this.current;
  }

  /** False only while down: a suspect database is still asked. */
  get usable(): boolean {
    return this.current !== 'down';
  }

  /** Why the database is not usable (the error that took it down), for `/readyz` and the log. */
  get reason(): string | undefined {
    return this.current === 'up' ? undefined : this.cause;
  }

  onChange(listener: AvailabilityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Throws instead of asking a database known to be down. */
  assertUsable(): void {
    if (this.current === 'down') throw new DatabaseUnavailableError(`the database is unreachable (${this.cause ?? 'probe failed'})`);
  }

  /** A statement failed: when as an outage does, the database becomes suspect and is probed. Answers whether it was one. */
  report(error: unknown): boolean {
    if (!isOutage(error)) return false;
    if (this.current === 'up' && !this.closed) {
      this.cause = messageOf(error);
      this.since = this.now();
      this.set('suspect');
      this.probeSoon(0);
    }
    return true;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private probeSoon(delayMs: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runProbe();
    }, delayMs);
    this.timer.unref();
  }

  private runProbe(): Promise<void> {
    this.probing ??= this.options
      .probe()
      .then(
        () => {
          if (this.current !== 'up') this.set('up');
        },
        (error: unknown) => {
          this.cause = messageOf(error);
          if (this.current !== 'down') this.set('down');
          this.probeSoon(this.options.probeEveryMs);
        },
      )
      .finally(() => (this.probing = undefined));
    return this.probing;
  }

  private set(state: AvailabilityState): void {
    this.current = state;
    const downForMs = this.now() - this.since;
    for (const listener of this.listeners) listener(state, state === 'up' ? undefined : this.cause, downForMs);
  }
}
