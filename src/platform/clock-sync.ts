import type { ClockState, ControllableClock } from './clock.js';
import type { Db } from './db/database.js';
import { SettingsStore } from './settings.js';
import { isRecord } from './values.js';

const KEY = 'sandbox_clock';

/**
 * Keeps a sandbox clock in the database so every pbs process sharing it sees the same time,
 * and so a moved clock survives a restart.
 */
export class ClockSync {
  private timer: NodeJS.Timeout | undefined;
  private readonly settings: SettingsStore;

  constructor(
    private readonly clock: ControllableClock,
    db: Db,
    private readonly intervalMs: number,
  ) {
    this.settings = new SettingsStore(db);
  }

  async load(): Promise<void> {
    const raw = await this.settings.get(KEY);
    if (!raw) return;
    const state = clockStateOf(raw);
    const current = this.clock.snapshot();
    if (state.offsetMs !== current.offsetMs || state.frozenAtMs !== current.frozenAtMs) this.clock.restore(state);
  }

  /** Writes the clock's current state; call after every operator change. */
  async save(): Promise<void> {
    await this.settings.set(KEY, JSON.stringify(this.clock.snapshot()));
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
}

/** The stored state, checked: the settings row is plain text an operator could have edited by hand. */
function clockStateOf(text: string): ClockState {
  const value: unknown = JSON.parse(text);
  if (isRecord(value) && typeof value.offsetMs === 'number' && (value.frozenAtMs === null || typeof value.frozenAtMs === 'number'))
    return { offsetMs: value.offsetMs, frozenAtMs: value.frozenAtMs };
  throw new Error(`the stored sandbox clock is not a clock state: ${text.slice(0, 80)}`);
}
