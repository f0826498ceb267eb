import type { ClockState, ControllableClock } from './clock.js';
import type { Database } from './db/database.js';
import { SettingsStore } from './settings.js';
import { isRecord } from './values.js';

const KEY = 'sandbox_clock';

/** The stored clock: its state and a version that every move raises by one. */
interface StoredClock {
  state: ClockState;
  version: number;
}

/**
 * Keeps a sandbox clock in the database so every pbs process sharing it sees the same time,
 * and so a moved clock survives a restart.
 *
 * Every move is a read-modify-write of the stored clock in one transaction (its row locked on
 * PostgreSQL), and raises the stored version; a process takes a stored state only when its
 * version is newer than the one it has. So a periodic re-read that started before a move can
 * never undo it, and a move in one process builds on the moves of every other
 * (docs/architecture.md "Time").
 */
export class ClockSync {
  private timer: NodeJS.Timeout | undefined;
  /** The version of the stored clock this process's clock reflects (-1: none read yet). */
  private version = -1;

  constructor(
    private readonly clock: ControllableClock,
    private readonly database: Database,
    private readonly intervalMs: number,
  ) {}

  /** Takes the stored clock when it is newer than ours (at start, and every `intervalMs`). */
  async load(): Promise<void> {
    const raw = await new SettingsStore(this.database.db).get(KEY);
    if (raw) this.adopt(storedClockOf(raw));
  }

  /**
   * Moves the clock: `change` is applied to the latest clock, stored and then taken here. Throws
   * what `change` throws (a time out of range), and then nothing moved anywhere.
   */
  async move(change: (clock: ControllableClock) => void): Promise<void> {
    const stored = await this.database.transact(async (trx) => {
      const settings = new SettingsStore(trx);
      // A row to lock, also for the first move ever: two first moves would otherwise both read
      // nothing and both write version 1.
      await settings.setIfAbsent(KEY, JSON.stringify({ ...this.clock.snapshot(), version: 0 }));
      const raw = await settings.getForUpdate(KEY, this.database.dialect);
      const latest = raw ? storedClockOf(raw) : undefined;
      // Our own clock when it already reflects the stored one (it may also hold a test's direct
      // move); the stored one when another process moved it since we last read.
      const base = latest && latest.version > this.version ? latest.state : this.clock.snapshot();
      const scratch = this.clock.scratch(base);
      change(scratch);
      const next: StoredClock = { state: scratch.snapshot(), version: (latest?.version ?? 0) + 1 };
      await settings.set(KEY, JSON.stringify({ ...next.state, version: next.version }));
      return next;
    });
    this.adopt(stored);
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.load().catch(() => {});
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Takes `stored` unless this process already has it or a later one (reads and moves finish in any order). */
  private adopt(stored: StoredClock): void {
    if (stored.version <= this.version) return;
    this.version = stored.version;
    const current = this.clock.snapshot();
    if (stored.state.offsetMs !== current.offsetMs || stored.state.frozenAtMs !== current.frozenAtMs) this.clock.restore(stored.state);
  }
}

/** The stored clock, checked: the settings row is plain text an operator could have edited by hand. */
function storedClockOf(text: string): StoredClock {
  const value: unknown = JSON.parse(text);
  if (isRecord(value) && typeof value.offsetMs === 'number' && (value.frozenAtMs === null || typeof value.frozenAtMs === 'number'))
    return {
      state: { offsetMs: value.offsetMs, frozenAtMs: value.frozenAtMs },
      // Written before moves carried versions: older than any move.
      version: typeof value.version === 'number' ? value.version : 0,
    };
  throw new Error(`the stored sandbox clock is not a clock state: ${text.slice(0, 80)}`);
}
