import { RawStatement } from '../platform/db/raw.js';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import type { NewRequestLogRow } from './request-log-store.js';
import { REQUEST_LOG_FIELDS } from './request-log-tables.js';

/**
 * Writing a batch of request log entries. SQLite runs one prepared single-row insert per entry
 * inside the batch's transaction (no statement built per batch); PostgreSQL takes multi-row
 * inserts, measured cheaper than one `unnest` of arrays (whose text escaping in the client cost
 * more than the rows). docs/request-log.md has the figures.
 */
/** Every column an entry is written with. */
export const REQUEST_LOG_COLUMNS = [...REQUEST_LOG_FIELDS, 'request_body', 'response_body'] as const;
const INSERT_ONE = new RawStatement(
  `insert into request_log (${REQUEST_LOG_COLUMNS.join(', ')}) values (${REQUEST_LOG_COLUMNS.map(() => '?').join(', ')})`,
);

export async function insertEntries(db: DbOrTx, dialect: Dialect, rows: NewRequestLogRow[]): Promise<void> {
  if (dialect === 'sqlite') {
    for (const row of rows)
      await INSERT_ONE.run(
        db,
        dialect,
        REQUEST_LOG_COLUMNS.map((c) => row[c] ?? null),
      );
    return;
  }
  // A few hundred rows a statement: within PostgreSQL's 65,535 parameters.
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('request_log')
      .values(rows.slice(i, i + 500))
      .execute();
}
