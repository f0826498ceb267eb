import { sql } from 'kysely';
import type { Clock } from './clock.js';
import type { Database, Tx } from './db/database.js';
import type { RelayedEvent } from './events.js';

/** Receives a batch of events inside the relay's transaction: what it writes commits with their marking. */
export type EventConsumer = (trx: Tx, events: RelayedEvent[]) => Promise<void>;

export interface EventRelayOptions {
  /** Events handed on per transaction. */
  batchSize: number;
  /** How often to look for events written by other processes. */
  pollMs: number;
  /** After a batch committed (e.g. wake the webhook deliverer). */
  onRelayed?: () => void;
  onError?: (error: unknown) => void;
}

/**
 * The one event path: changes write events to the outbox (`domain_events`) in their own
 * transaction; this relay takes the unrelayed ones oldest first, gives them to every registered
 * consumer in one transaction with their marking, and commits. On PostgreSQL the events are
 * claimed with FOR UPDATE SKIP LOCKED, so several processes relay without handing an event on
 * twice; SQLite has one writer, so its transaction is exclusive already. A process that dies
 * mid-batch rolls back, and the events wait for the next relay.
 */
export class EventRelay {
  private readonly consumers: EventConsumer[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: EventRelayOptions,
  ) {}

  register(consumer: EventConsumer): void {
    this.consumers.push(consumer);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.pumping;
  }

  /** A change committed events: relay them soon (other processes' are found by polling). */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.runDue()
      .then(
        () => undefined,
        (error: unknown) => this.options.onError?.(error),
      )
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else if (this.running) {
          if (this.timer) clearTimeout(this.timer);
          this.timer = setTimeout(() => this.wake(), this.options.pollMs);
          this.timer.unref();
        }
      });
  }

  /** Relays every waiting event; answers how many. Tests call this instead of waiting. */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const relayed = await this.relayBatch();
      total += relayed;
      if (relayed < this.options.batchSize) return total;
    }
  }

  private async relayBatch(): Promise<number> {
    const lock = this.database.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const count = await this.database.transact(async (trx) => {
      const { rows } = await sql<RelayedEvent>`
        select id, type, business_id, partner_id, payload, occurred_at from domain_events
        where relayed_at is null order by occurred_at, id limit ${this.options.batchSize} ${lock}`.execute(trx);
      if (rows.length === 0) return 0;
      for (const consume of this.consumers) await consume(trx, rows);
      await trx
        .updateTable('domain_events')
        .set({ relayed_at: this.clock.now() })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return rows.length;
    });
    if (count > 0) this.options.onRelayed?.();
    return count;
  }
}
