import { randomBase62 } from './ids.js';
import type { Database, DbOrTx } from './db/database.js';
import { RawStatement } from './db/raw.js';

/** What changed elsewhere: one key of a topic, or everything (when changes may have been missed). */
export type ChangeListener = (key: string | undefined) => void;

const CHANNEL = 'pbs_changes';
const NOTIFY = new RawStatement(`select pg_notify('${CHANNEL}', ?)`);

/**
 * Tells in-memory caches when another process committed a change to what they hold, so they can
 * serve reads without asking the database each time. PostgreSQL pushes: writers NOTIFY in their
 * transaction (delivered on commit only) and every process LISTENs. SQLite polls its
 * `data_version`, which moves only on other connections' commits, and then reports "everything"
 * (it cannot say what changed; other writers are rare there: the CLI, a second process).
 */
export class ChangeFeed {
  /** Identifies this process in notifications, so it skips its own (it updated its caches already). */
  readonly origin = randomBase62(12);
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private lastDataVersion: number | undefined;
  private checkedAt = 0;
  private listener: { close(): Promise<void> } | undefined;

  /**
   * @param pollMs SQLite: look at `data_version` at most this often (reading it takes file
   *   locks, a tenth of a cached read's cost), so other processes' commits show within this time.
   */
  constructor(
    private readonly database: Database,
    private readonly pollMs = 50,
  ) {
    this.lastDataVersion = database.dataVersion?.();
  }

  /** Starts listening (PostgreSQL). Until then, and while reconnecting, other processes' changes may be missed. */
  async start(): Promise<void> {
    if (!this.database.listen || this.listener) return;
    this.listener = await this.database.listen(CHANNEL, (payload) => this.received(payload), () => this.emitAll());
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
  }

  subscribe(topic: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Call before trusting a cache: on SQLite this is where other processes' commits are noticed. */
  check(): void {
    if (!this.database.dataVersion) return;
    const wall = Date.now();
    if (wall - this.checkedAt < this.pollMs) return;
    this.checkedAt = wall;
    const version = this.database.dataVersion();
    if (version !== this.lastDataVersion) {
      this.lastDataVersion = version;
      this.emitAll();
    }
  }

  /** The notification text for `topic`/`key`, for writers that fold it into a statement of their own. */
  payload(topic: string, key: string): string {
    return `${this.origin}|${topic}|${key}`;
  }

  /** Announces a change from inside the writing transaction (a no-op on SQLite). */
  async publish(trx: DbOrTx, topic: string, key: string): Promise<void> {
    if (this.database.dialect !== 'postgres') return;
    await NOTIFY.rows(trx, 'postgres', [this.payload(topic, key)]);
  }

  private received(payload: string): void {
    const [origin, topic, ...rest] = payload.split('|');
    if (origin === this.origin || topic === undefined) return;
    const key = rest.join('|');
    for (const listener of this.listeners.get(topic) ?? []) listener(key);
  }

  private emitAll(): void {
    for (const set of this.listeners.values()) for (const listener of set) listener(undefined);
  }
}
