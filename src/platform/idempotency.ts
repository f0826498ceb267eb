import type { Clock } from './clock.js';
import type { Db } from './db/database.js';
import './db/platform-tables.js';
import { apiError } from './errors.js';
import { sha256Hex } from './ids.js';

export interface StoredResponse {
  statusCode: number;
  contentType: string | null;
  body: string;
}

export type IdempotencyOutcome = { kind: 'proceed' } | { kind: 'replay'; response: StoredResponse };

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** A first attempt that has not finished after this long (wall time) is presumed dead. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Idempotency-Key support for partner POST/DELETE: the first response is stored for 24 h and
 * replayed to retries; the same key with another request → 422; still running → 409.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
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
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db
        .insertInto('idempotency_keys')
        .values({
          partner_id: partnerId,
          key,
          fingerprint,
          state: 'in_progress',
          created_at: now,
          locked_at: Date.now(),
          expires_at: now + this.ttlMs,
        })
        .onConflict((oc) => oc.columns(['partner_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'proceed' };

      const row = await this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) continue; // removed between our insert and select: try again
      if (row.expires_at <= now) {
        await this.release(partnerId, key, row.fingerprint);
        continue;
      }
      if (row.fingerprint !== fingerprint) throw apiError('IDEMPOTENCY_KEY_REUSED');
      if (row.state === 'completed') {
        return {
          kind: 'replay',
          response: { statusCode: row.status_code!, contentType: row.content_type, body: row.response_body ?? '' },
        };
      }
      if (Date.now() - row.locked_at < ABANDONED_AFTER_MS) throw apiError('IDEMPOTENCY_KEY_IN_USE');
      await this.release(partnerId, key, row.fingerprint);
    }
    throw apiError('IDEMPOTENCY_KEY_IN_USE');
  }

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
      .execute();
  }

  /** Forget a key so the request can be tried again (after a server error, or when expired). */
  async release(partnerId: string, key: string, fingerprint?: string): Promise<void> {
    let q = this.db.deleteFrom('idempotency_keys').where('partner_id', '=', partnerId).where('key', '=', key);
    if (fingerprint) q = q.where('fingerprint', '=', fingerprint);
    await q.execute();
  }

  async purgeExpired(): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', this.clock.now()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
