import { apiError } from './errors.js';
import { EventEmitter } from 'node:events';

/** The one source of "now" for every rule that depends on time. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
  /** Subscribe to jumps of the clock (sandbox moves), so timers can re-check what is due. */
  onChange(listener: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  onChange: () => () => {},
};

export interface ClockState {
  /** Added to the wall clock while running. */
  offsetMs: number;
  /** When set, time stands still at this instant. */
  frozenAtMs: number | null;
}

/**
 * Where a sandbox clock may be moved: from the epoch to the year 9000, so every date pbs derives
 * from "now" (a year of bookings ahead, retries, promotions months long) stays a four-digit year.
 */
export const CLOCK_RANGE = { from: 0, to: Date.UTC(9000, 0, 1) };

/** 400 VALIDATION_ERROR when the clock cannot be moved to `atMs` (outside CLOCK_RANGE, or no number). */
export function checkClockTime(atMs: number): void {
  if (atMs >= CLOCK_RANGE.from && atMs <= CLOCK_RANGE.to) return;
  throw apiError(
    'VALIDATION_ERROR',
    `The clock stays between ${toIso(CLOCK_RANGE.from)} and ${toIso(CLOCK_RANGE.to)}; it cannot go to ${Number.isFinite(atMs) ? toIso(atMs) : String(atMs)}.`,
    { field: null },
  );
}

/**
 * A clock the operator can read, freeze, set and advance (sandbox mode and tests).
 * Its state is two numbers so it can be shared between processes through the database.
 */
export class ControllableClock implements Clock {
  private state: ClockState;
  private readonly events = new EventEmitter();

  constructor(
    initial: Partial<ClockState> = {},
    private readonly wall: () => number = Date.now,
  ) {
    this.state = { offsetMs: initial.offsetMs ?? 0, frozenAtMs: initial.frozenAtMs ?? null };
    this.events.setMaxListeners(100);
  }

  now(): number {
    return this.state.frozenAtMs ?? this.wall() + this.state.offsetMs;
  }

  get frozen(): boolean {
    return this.state.frozenAtMs !== null;
  }

  snapshot(): ClockState {
    return { ...this.state };
  }

  /** A separate clock on the same wall, in `state`: to work out a move before making it. */
  scratch(state: ClockState): ControllableClock {
    return new ControllableClock(state, this.wall);
  }

  /** Replace the state (e.g. as read from the database); notifies only when time actually moved. */
  restore(state: ClockState): void {
    const before = this.now();
    this.state = { ...state };
    this.emit(before);
  }

  /** Moves the clock to `atMs`; a time outside CLOCK_RANGE is refused (400) and nothing moves. */
  set(atMs: number): void {
    checkClockTime(atMs);
    const before = this.now();
    if (this.state.frozenAtMs !== null) this.state.frozenAtMs = atMs;
    else this.state.offsetMs = atMs - this.wall();
    this.emit(before);
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  freeze(): void {
    this.state = { offsetMs: this.state.offsetMs, frozenAtMs: this.now() };
  }

  unfreeze(): void {
    const at = this.now();
    this.state = { offsetMs: at - this.wall(), frozenAtMs: null };
  }

  /** Back to real time. */
  reset(): void {
    const before = this.now();
    this.state = { offsetMs: 0, frozenAtMs: null };
    this.emit(before);
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private emit(before: number): void {
    if (this.now() !== before) this.events.emit('change');
  }
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO 8601 in UTC with an explicit `+00:00` offset, as the original API writes timestamps. */
export function toIsoOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
