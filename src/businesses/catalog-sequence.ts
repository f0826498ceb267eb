import { sql } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import '../platform/db/platform-tables.js';

/** The settings key of the catalogue sequence. */
const KEY = 'catalog_sequence';

/**
 * The next catalogue sequence number, taken in the transaction of a change to businesses or
 * reservation inventory, whose rows are stamped with it (docs/catalogue.md "Across processes").
 * On PostgreSQL the settings row stays locked until the transaction ends, so changes get their
 * numbers in the order they commit: a reader that has seen number n has seen every change up to
 * n. SQLite has one writer at a time already.
 */
export async function nextCatalogSequence(db: DbOrTx): Promise<number> {
  const row = await db
    .insertInto('settings')
    .values({ key: KEY, value: '1' })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: sql<string>`cast(cast(settings.value as bigint) + 1 as text)` }))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/** The last catalogue sequence number given out (0 before the first change). */
export async function catalogSequence(db: DbOrTx): Promise<number> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', KEY).executeTakeFirst();
  return row ? Number(row.value) : 0;
}
