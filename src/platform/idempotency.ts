import type { Clock } from './clock.js';
import type { Db, DbOrTx } from './db/database.js';
import './db/platform-tables.js';
import { apiError } from './errors.js';
import { randomBase62, sha256Hex } from './ids.js';
import { isOutage } from './db/availability.js';
import { JSON_UTF8 } from './http/send-json.js';

export interface StoredResponse {
  statusCode: number;
  contentType: string | null;
  body: string;
}

export type IdempotencyOutcome = { kind: 'proceed'; claim: string } | { kind: 'replay'; response: StoredResponse };

/** A claimed Idempotency-Key whose request is running: a change answers it in its own transaction. */
export interface PendingIdempotency {
  partnerId: string;
  key: string;
  /** Which attempt claimed it (see IdempotencyKeysTable.claim). */
  claim: string;
}

/**
 * What a partner's write carries from its request into the transaction of its change: the
 * request's id, which the events the change records name (so the request log links a request
 * to the webhooks it caused, docs/request-log.md "Links"), and the Idempotency-Key it claimed,
 * which the change answers. Passed by hand rather than found in an AsyncLocalStorage: on
 * Node 20 such a storage adds a hook to every promise of every request (docs/request-log.md
 * "Links").
 */
export interface PartnerWrite {
  requestId: string;
  /** The key its change answers (which attempt claimed it is the guard's business). */
  idempotency: Pick<PendingIdempotency, 'partnerId' | 'key'> | undefined;
}

/** JSON answers are stored with this type (what the routes send). */

/**
 * Stores the answer to an idempotent request inside the transaction of the change it answers:
 * both commit or neither does, so a crash between them cannot leave a committed change whose
 * retry runs again (and answers, say, HOLD_NOT_FOUND for a hold the first attempt consumed).
 * Writers that commit in one PostgreSQL statement fold the same update into it (see the
 * reservation store) with `idempotencyParameters`.
 */
export async function answerWithinChange(db: DbOrTx, write: PartnerWrite | undefined, statusCode: number, body: unknown): Promise<void> {
  const pending = write?.idempotency;
  if (!pending) return;
  // `undefined`: an answer without a body (e.g. 202 with an empty body).
  const empty = body === undefined;
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      status_code: statusCode,
      content_type: empty ? null : JSON_UTF8,
      response_body: empty ? '' : JSON.stringify(body),
    })
    .where('partner_id', '=', pending.partnerId)
    .where('key', '=', pending.key)
    // Only a key still in progress: the request's own onSend may not store over it, nor it over that.
    .where('state', '=', 'in_progress')
    .execute();
}

/** Parameters for a statement that completes the key itself (nulls match no key). */
export function idempotencyParameters(write: PartnerWrite | undefined, statusCode: number, body: unknown) {
  const pending = write?.idempotency;
  return {
    idem_partner: pending?.partnerId ?? null,
    idem_key: pending?.key ?? null,
    idem_status: statusCode,
    idem_body: pending ? JSON.stringify(body) : null,
  };
}

/** The SQL of a data-modifying WITH that completes a key when `condition` holds (PostgreSQL statements). */
export const completeIdempotencyWhen = (condition: string) =>
  `update idempotency_keys set state = 'completed', status_code = cast(:idem_status as integer), content_type = '${JSON_UTF8}',
     response_body = :idem_body
   where partner_id = :idem_partner and key = :idem_key and state = 'in_progress' and ${condition}`;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Claims kept to let go of after an outage (IdempotencyStore.releaseLater). */
const MAX_PENDING_RELEASES = 10_000;
const pendingKey = (partnerId: string, key: string) => `${partnerId}\n${key}`;

/**
 * Idempotency-Key support for partner POST/DELETE: the first response is stored for 24 h and
 * replayed to retries; the same key with another request → 422; still running → 409.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /**
     * A first attempt that has not finished after this long (wall time) is presumed dead, and a
     * retry runs the request again: safe, since a change that committed completed the key with it.
     */
    private readonly abandonedAfterMs = 60_000,
  ) {}

  static fingerprint(method: string, url: string, body: unknown): string {
    return sha256Hex(`${method}\n${url}\n${body === undefined ? '' : JSON.stringify(body)}`);
  }

  static validateKey(key: string): void {
    if (!KEY_PATTERN.test(key)) {
      throw apiError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        field: 'Idempotency-Key',
      });
    }
  }

  async begin(partnerId: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const now = this.clock.now();
    // This process answered the key's last attempt with 503 and could not let it go then.
    const left = this.toRelease.get(pendingKey(partnerId, key));
    if (left) await this.releaseLeft(left);
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim = randomBase62(16);
      let inserted;
      try {
        inserted = await this.db
          .insertInto('idempotency_keys')
          .values({
            partner_id: partnerId,
            key,
            fingerprint,
            state: 'in_progress',
            created_at: now,
            locked_at: Date.now(),
            expires_at: now + this.ttlMs,
            claim,
          })
          .onConflict((oc) => oc.columns(['partner_id', 'key']).doNothing())
          .executeTakeFirst();
      } catch (error) {
        // The claim may have been written before the database went away: let go of it once it
        // is back, or every retry would answer IDEMPOTENCY_KEY_IN_USE until the takeover time.
        if (isOutage(error)) this.releaseLater({ partnerId, key, claim });
        throw error;
      }
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'proceed', claim };

      const row = await this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) continue; // removed between our insert and select: try again
      if (row.expires_at <= now) {
        await this.release(partnerId, key, { fingerprint: row.fingerprint, evenCompleted: true });
        continue;
      }
      if (row.fingerprint !== fingerprint) throw apiError('IDEMPOTENCY_KEY_REUSED');
      if (row.state === 'completed') {
        return {
          kind: 'replay',
          response: { statusCode: row.status_code!, contentType: row.content_type, body: row.response_body ?? '' },
        };
      }
      if (Date.now() - row.locked_at < this.abandonedAfterMs) throw apiError('IDEMPOTENCY_KEY_IN_USE');
      await this.release(partnerId, key, { fingerprint: row.fingerprint });
    }
    throw apiError('IDEMPOTENCY_KEY_IN_USE');
  }

  /** Stores the answer of a request whose key is still in progress (a change may have stored its own). */
  async complete(partnerId: string, key: string, response: StoredResponse): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({
        state: 'completed',
        status_code: response.statusCode,
        content_type: response.contentType,
        response_body: response.body,
      })
      .where('partner_id', '=', partnerId)
      .where('key', '=', key)
      .where('state', '=', 'in_progress')
      .execute();
  }

  /**
   * Forgets a key so the request can be tried again (after a server error, or when expired): the
   * claim of one attempt, or any with the fingerprint. A key completed by a committed change
   * stays: that change happened, and retries must hear so.
   */
  async release(
    partnerId: string,
    key: string,
    { fingerprint, claim, evenCompleted = false }: { fingerprint?: string; claim?: string; evenCompleted?: boolean } = {},
  ): Promise<void> {
    let q = this.db.deleteFrom('idempotency_keys').where('partner_id', '=', partnerId).where('key', '=', key);
    if (fingerprint) q = q.where('fingerprint', '=', fingerprint);
    if (claim) q = q.where('claim', '=', claim);
    if (!evenCompleted) q = q.where('state', '=', 'in_progress');
    await q.execute();
  }

  /**
   * Claims of attempts that answered 503 while the database was away, to let go of once it is
   * back (`releasePending`, or the key's next attempt in this process). Bounded: past the bound a
   * key waits for the takeover time, as one of a crashed process does.
   */
  private readonly toRelease = new Map<string, PendingIdempotency>();

  releaseLater(pending: PendingIdempotency): void {
    if (this.toRelease.size < MAX_PENDING_RELEASES) this.toRelease.set(pendingKey(pending.partnerId, pending.key), pending);
  }

  /** Lets go of the claims `releaseLater` kept (the database is back); those that fail stay for the next call. */
  async releasePending(): Promise<void> {
    for (const pending of [...this.toRelease.values()]) {
      try {
        await this.releaseLeft(pending);
      } catch {
        return;
      }
    }
  }

  private async releaseLeft(pending: PendingIdempotency): Promise<void> {
    await this.release(pending.partnerId, pending.key, { claim: pending.claim });
    const at = pendingKey(pending.partnerId, pending.key);
    if (this.toRelease.get(at) === pending) this.toRelease.delete(at);
  }

  async purgeExpired(): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', this.clock.now()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
