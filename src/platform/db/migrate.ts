import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Dialect } from './database.js';

/** A migration receives the dialect so the few type differences (e.g. doubles) stay in one file. */
export interface PbsMigration {
  name: string;
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

/**
 * Migrations are contributed by the platform and by each family; names start with a sortable
 * prefix (e.g. `0001_foundation`) and are applied in that order.
 */
export async function migrateToLatest(database: Database, migrations: PbsMigration[]): Promise<string[]> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of [...migrations].sort((a, b) => a.name.localeCompare(b.name))) {
        if (out[m.name]) throw new Error(`duplicate migration name ${m.name}`);
        out[m.name] = { up: (db) => m.up(db, database.dialect) };
      }
      return out;
    },
  };
  const migrator = new Migrator({
    db: database.db,
    provider,
    migrationTableName: 'pbs_migrations',
    migrationLockTableName: 'pbs_migrations_lock',
    // Without a schema Kysely would take another schema's bookkeeping tables for ours.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
