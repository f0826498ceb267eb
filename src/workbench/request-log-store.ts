import type { Insertable, Selectable } from 'kysely';
import { sql } from 'kysely';
import { LOG_SCHEMA, type DbOrTx } from '../platform/db/database.js';
import { REQUEST_LOG_FIELDS, type RequestLogTable } from './request-log-tables.js';

export type RequestLogRow = Selectable<RequestLogTable>;
export type NewRequestLogRow = Insertable<RequestLogTable>;

/**
 * Whether an error entry was answered by the partner's own fault rule: an entry names a rule and
 * holds an error only then (docs/faults.md "In the request log"). 1 or 0 on both databases.
 */
const INJECTED = sql<number>`case when fault_rule is null then 0 else 1 end`;

/** What a listing may ask for; every field narrows it. */
export interface RequestLogFilter {
  partnerId?: string;
  /** `2xx`, `4xx`, `5xx`… */
  statusClass?: number;
  status?: number;
  interface?: string;
  operation?: string;
  errorCode?: string;
  requestId?: string;
  idempotencyKey?: string;
  /** pbs time (ms), inclusive. */
  from?: number;
  to?: number;
  /** Only entries with a larger id (tailing). */
  afterId?: number;
  /** Only entries with a smaller id (paging back). */
  beforeId?: number;
  limit: number;
}

/** The columns of a listing: everything but the bodies. */
const LISTED = ['id', ...REQUEST_LOG_FIELDS] as const;

export class RequestLogStore {
  constructor(private readonly db: DbOrTx) {}

  list(filter: RequestLogFilter) {
    let q = this.db.selectFrom('request_log').select(LISTED);
    if (filter.partnerId !== undefined) q = q.where('partner_id', '=', filter.partnerId);
    if (filter.statusClass !== undefined)
      q = q.where('status', '>=', filter.statusClass * 100).where('status', '<', filter.statusClass * 100 + 100);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    if (filter.interface !== undefined) q = q.where('interface', '=', filter.interface);
    if (filter.operation !== undefined) q = q.where('operation', '=', filter.operation);
    if (filter.errorCode !== undefined) q = q.where('error_code', '=', filter.errorCode);
    if (filter.requestId !== undefined) q = q.where('request_id', '=', filter.requestId);
    if (filter.idempotencyKey !== undefined) q = q.where('idempotency_key', '=', filter.idempotencyKey);
    if (filter.from !== undefined) q = q.where('at', '>=', filter.from);
    if (filter.to !== undefined) q = q.where('at', '<=', filter.to);
    if (filter.afterId !== undefined) q = q.where('id', '>', filter.afterId);
    if (filter.beforeId !== undefined) q = q.where('id', '<', filter.beforeId);
    // Tailing reads forward from a cursor; a listing reads back from the newest.
    return q
      .orderBy('id', filter.afterId !== undefined ? 'asc' : 'desc')
      .limit(filter.limit)
      .execute();
  }

  /** Errors grouped by code and operation: how many, first and last seen (pbs ms), most frequent first. */
  errorGroups(filter: { partnerId?: string; from?: number; to?: number }) {
    let q = this.db
      .selectFrom('request_log')
      .select((eb) => [
        'error_code',
        'operation',
        eb.fn.countAll<number>().as('count'),
        eb.fn.min('at').as('first_at'),
        eb.fn.max('at').as('last_at'),
        eb.fn.max('status').as('status'),
        INJECTED.as('injected'),
      ])
      .where('error_code', 'is not', null);
    if (filter.partnerId !== undefined) q = q.where('partner_id', '=', filter.partnerId);
    if (filter.from !== undefined) q = q.where('at', '>=', filter.from);
    if (filter.to !== undefined) q = q.where('at', '<=', filter.to);
    return q
      .groupBy(['error_code', 'operation', INJECTED])
      .orderBy('count', 'desc')
      .orderBy('error_code')
      .orderBy('operation')
      .limit(500)
      .execute();
  }

  one(id: number) {
    return this.db.selectFrom('request_log').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Deletes entries older than `before` (pbs ms); answers how many. */
  async purgeOlderThan(before: number): Promise<number> {
    const result = await this.db.deleteFrom('request_log').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * SQLite: moves what the WAL holds into the log file and empties the WAL, so purged entries'
   * bytes (overwritten in the file by secure_delete) are not left in old WAL frames either.
   * Best effort: a reader in the middle of a read keeps the frames it reads until the next purge.
   */
  async checkpointLogFile(): Promise<void> {
    await sql`pragma ${sql.raw(LOG_SCHEMA)}.wal_checkpoint(TRUNCATE)`.execute(this.db);
  }

  /** Partners holding more than `max` entries. */
  async partnersOver(max: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('request_log')
      .select('partner_id')
      .where('partner_id', 'is not', null)
      .groupBy('partner_id')
      .having((eb) => eb.fn.countAll(), '>', max)
      .execute();
    return rows.flatMap((r) => (r.partner_id === null ? [] : [r.partner_id]));
  }

  /** Keeps a partner's newest `max` entries; answers how many went. */
  async keepNewest(partnerId: string, max: number): Promise<number> {
    const edge = await this.db
      .selectFrom('request_log')
      .select('id')
      .where('partner_id', '=', partnerId)
      .orderBy('id', 'desc')
      .offset(max)
      .limit(1)
      .executeTakeFirst();
    if (!edge) return 0;
    const result = await this.db
      .deleteFrom('request_log')
      .where('partner_id', '=', partnerId)
      .where('id', '<=', edge.id)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
