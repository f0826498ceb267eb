import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from './database.js';

/** A migration receives the dialect so the few type differences (e.g. doubles) stay in one file. */
export interface PbsMigration {
  name: string;
  // A migration works on the schema as it was then, not on today's `Tables`: untyped on purpose.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

/**
 * Applies pending migrations, contributed by the platform and by each family and applied in the
 * order of their names (`0001_platform`, `0100_reservations`, …), all in one transaction: a
 * failed migration leaves the database as it was. On PostgreSQL an advisory lock makes processes
 * that start together take turns. Applied names are kept in `pbs_migrations` (name, timestamp).
 *
 * Kysely's own Migrator is not used: it looks for its tables by listing every table of every
 * schema, which is slow with many schemas and fails when another schema is dropped meanwhile.
 */
export async function migrateToLatest(database: Database, migrations: PbsMigration[]): Promise<string[]> {
  const sorted = [...migrations].sort((a, b) => a.name.localeCompare(b.name));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].name === sorted[i - 1].name) throw new Error(`duplicate migration name ${sorted[i].name}`);
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pbs_migrations is not in `Tables`
  const db = database.db as Kysely<any>;
  return db.transaction().execute(async (trx) => {
    if (database.dialect === 'postgres') {
      // A migration of a large table may run long; statement_timeout is for requests.
      await sql`set local statement_timeout = 0`.execute(trx);
      await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.pbs_migrations'))`.execute(trx);
    }
    await sql`create table if not exists pbs_migrations (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(trx);
    const applied = new Set((await trx.selectFrom('pbs_migrations').select('name').execute()).map((r) => String(r.name)));
    const done: string[] = [];
    for (const migration of sorted) {
      if (applied.has(migration.name)) continue;
      await migration.up(trx, database.dialect);
      await trx.insertInto('pbs_migrations').values({ name: migration.name, timestamp: new Date().toISOString() }).execute();
      done.push(migration.name);
    }
    return done;
  });
}
