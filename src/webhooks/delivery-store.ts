import { sql, type Selectable } from 'kysely';
import type { DbOrTx, Dialect, Tx } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
import { newId } from '../platform/ids.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhook-tables.js';

/** A claimed delivery: what sending and recording it need, with its message's body. */
export type Delivery = Pick<Selectable<WebhookDeliveriesTable>, 'id' | 'message_id' | 'partner_id' | 'attempts' | 'give_up_at'> & {
  /** Null when the message is gone. */
  body: string | null;
};

export type Endpoint = Selectable<WebhookEndpointsTable>;

/** What one attempt came to, as its record keeps it. */
export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  latencyMs: number;
}

// Written once per attempt: precompiled (see RawStatement).
const INSERT_ATTEMPT = new RawStatement(
  'insert into webhook_attempts (id, delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt) values (?, ?, ?, ?, ?, ?, ?)',
);

/**
 * What a claim returns: only the columns delivering needs, and the message body, so a batch needs
 * no second read (returned columns are a large share of the claim's cost on SQLite).
 */
const CLAIMED = `returning id, message_id, partner_id, attempts, give_up_at,
  (select body from webhook_messages m where m.id = webhook_deliveries.message_id) as body`;
// The usual claim (no partner left out), compiled once; see `claim`.
const CLAIM = `update webhook_deliveries set locked_by = ?, locked_until = ?, attempts = attempts + 1
  where id in (
    select id from webhook_deliveries
    where status = 'pending' and next_attempt_at <= ? and (locked_until is null or locked_until < ?)
    order by next_attempt_at limit ? {LOCK}
  )
  ${CLAIMED}`;
const CLAIM_SQLITE = new RawStatement<Delivery>(CLAIM.replace('{LOCK}', ''));
const CLAIM_POSTGRES = new RawStatement<Delivery>(CLAIM.replace('{LOCK}', 'for update skip locked'));
const SETTLE = new RawStatement(
  'update webhook_deliveries set status = ?, last_status_code = ?, last_error = ?, finished_at = ?, locked_by = null, locked_until = null where id = ? and locked_by = ?',
);
const ENDPOINT = new RawStatement<Endpoint>('select * from webhook_endpoints where partner_id = ?');

/**
 * The deliverer's SQL: claiming due deliveries for one worker (FOR UPDATE SKIP LOCKED on
 * PostgreSQL), reading endpoints, and recording attempts, retries and final outcomes. Every
 * change of a claimed delivery is conditional on the worker still holding it.
 */
export class DeliveryStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
    private readonly workerId: string,
  ) {}

  /**
   * Claims up to `limit` due deliveries until `lease` (wall clock): due on the pbs clock by `now`,
   * unlocked or with a lapsed lease at `wall`; `excluded` partners are left out.
   */
  async claim(limit: number, now: number, wall: number, lease: number, excluded: string[]): Promise<Delivery[]> {
    if (excluded.length === 0)
      return (this.dialect === 'postgres' ? CLAIM_POSTGRES : CLAIM_SQLITE).rows(this.db, this.dialect, [
        this.workerId,
        lease,
        now,
        wall,
        limit,
      ]);
    // Built per call: the list varies.
    const exclude = sql`and partner_id not in (${sql.join(excluded)})`;
    const lock = this.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<Delivery>`
      update webhook_deliveries
      set locked_by = ${this.workerId}, locked_until = ${lease}, attempts = attempts + 1
      where id in (
        select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${now}
          and (locked_until is null or locked_until < ${wall}) ${exclude}
        order by next_attempt_at
        limit ${limit}
        ${lock}
      )
      ${sql.raw(CLAIMED)}`.execute(this.db);
    return result.rows;
  }

  /** Claimed deliveries given back unsent (their partner had no slot free): due again, their attempt not counted. */
  async handBack(deliveries: Delivery[]): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1) }))
      .where(
        'id',
        'in',
        deliveries.map((d) => d.id),
      )
      .where('locked_by', '=', this.workerId)
      .execute();
  }

  async endpointOf(partnerId: string): Promise<Endpoint | undefined> {
    const [endpoint] = await ENDPOINT.rows(this.db, this.dialect, [partnerId]);
    return endpoint;
  }

  async recordAttempt(trx: Tx, d: Delivery, o: AttemptRecord, at: number): Promise<void> {
    await INSERT_ATTEMPT.run(trx, this.dialect, [newId(), d.id, at, o.statusCode, Math.round(o.latencyMs * 100) / 100, o.error, o.excerpt]);
  }

  async settle(
    trx: Tx,
    d: Delivery,
    status: 'delivered' | 'failed',
    statusCode: number | null,
    error: string | null,
    now: number,
  ): Promise<void> {
    await SETTLE.run(trx, this.dialect, [status, statusCode, error, now, d.id, this.workerId]);
  }

  /** The delivery waits for its next attempt at `next`, unlocked. */
  async retryAt(trx: Tx, d: Delivery, next: number, statusCode: number | null, error: string): Promise<void> {
    await trx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: next, last_status_code: statusCode, last_error: error, locked_by: null, locked_until: null })
      .where('id', '=', d.id)
      .where('locked_by', '=', this.workerId)
      .execute();
  }

  /** The partner's endpoint answered 410 Gone: nothing more is sent to it until the operator registers it again. */
  async markGone(trx: Tx, partnerId: string, at: number): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'gone', status_reason: 'answered 410 Gone', updated_at: at })
      .where('partner_id', '=', partnerId)
      .execute();
  }
}
