import type { Generated, Selectable } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { Json } from '../platform/values.js';
import type { ReservationSettings } from './inventory.js';

export interface RestaurantSettingsTable {
  business_id: string;
  accepts_reservations: number;
  settings: Json<ReservationSettings>;
  updated_at: number;
  /** The catalogue sequence number of the last change (businesses/catalog-sequence.ts). */
  catalog_seq: Generated<number>;
}

export interface RestaurantTablesTable {
  id: string;
  business_id: string;
  name: string;
  min_party: number;
  max_party: number;
  /** Removed tables stay (bookings reference them) but take no new parties. */
  active: number;
}

/** Settings of a streamed import waiting for its end (docs/catalogue.md "Imports"). */
export interface SettingsImportLinesTable {
  import_id: string;
  line: number;
  business_id: string;
  accepts_reservations: number;
  settings: Json<ReservationSettings>;
  staged_at: number;
}

/** The tables of those settings, with the ids new tables get. */
export interface TableImportLinesTable {
  import_id: string;
  line: number;
  id: string;
  business_id: string;
  name: string;
  min_party: number;
  max_party: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    restaurant_settings: RestaurantSettingsTable;
    restaurant_tables: RestaurantTablesTable;
    settings_import_lines: SettingsImportLinesTable;
    table_import_lines: TableImportLinesTable;
  }
}

export type TableRow = Selectable<RestaurantTablesTable>;

/** A table as the in-memory inventory keeps it: what choosing a table needs. */
export type InventoryTable = Pick<TableRow, 'id' | 'name' | 'min_party' | 'max_party'>;

/** Catalogue sequence numbers on settings, and the staging tables of streamed imports. */
export const inventorySequenceMigration: PbsMigration = {
  name: '0104_restaurant_settings_catalog_sequence',
  async up(db) {
    await db.schema
      .alterTable('restaurant_settings')
      .addColumn('catalog_seq', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('restaurant_settings_catalog_seq')
      .on('restaurant_settings')
      .columns(['catalog_seq', 'business_id'])
      .execute();
    await db.schema.createIndex('restaurant_tables_business').on('restaurant_tables').columns(['business_id', 'active']).execute();
    await db.schema
      .createTable('settings_import_lines')
      .addColumn('import_id', 'text', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('accepts_reservations', 'integer', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('staged_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('settings_import_lines_pk', ['import_id', 'line'])
      .execute();
    await db.schema
      .createTable('table_import_lines')
      .addColumn('import_id', 'text', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('min_party', 'integer', (c) => c.notNull())
      .addColumn('max_party', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('table_import_lines_pk', ['import_id', 'business_id', 'name'])
      .execute();
  },
};
