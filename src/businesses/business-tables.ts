import { sql, type Generated } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';
import type { Json } from '../platform/values.js';
import type { Business } from './business-record.js';

export interface BusinessesTable {
  id: string;
  alias: string;
  name: string;
  city: string;
  state: string;
  zip_code: string;
  country: string;
  latitude: number | null;
  longitude: number | null;
  rating: number;
  review_count: number;
  price: string | null;
  is_closed: number;
  timezone: string;
  /** The whole record as JSON; the columns above exist to filter and sort. */
  record: Json<Business>;
  created_at: number;
  updated_at: number;
  /** The catalogue sequence number of the last change (see catalog-sequence.ts). */
  catalog_seq: Generated<number>;
  /** As in the record (E.164 or ''): Business Match compares it. */
  phone: string;
}

/**
 * Lines of a streamed import waiting for the import's end (docs/catalogue.md "Imports"): checked
 * and written here batch by batch, then moved into `businesses` in one transaction, so an import
 * is all or nothing without holding its body in memory or a write lock while it arrives.
 */
export interface BusinessImportLinesTable extends Omit<BusinessesTable, 'created_at' | 'updated_at' | 'catalog_seq'> {
  import_id: string;
  line: number;
  staged_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    businesses: BusinessesTable;
    business_import_lines: BusinessImportLinesTable;
  }
}

export const businessesMigration: PbsMigration = {
  name: '0002_businesses',
  async up(db) {
    await db.schema
      .createTable('businesses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('alias', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('city', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('zip_code', 'text', (c) => c.notNull())
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('latitude', 'double precision')
      .addColumn('longitude', 'double precision')
      .addColumn('rating', 'double precision', (c) => c.notNull())
      .addColumn('review_count', 'integer', (c) => c.notNull())
      .addColumn('price', 'text')
      .addColumn('is_closed', 'integer', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('record', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('businesses_city').on('businesses').columns(['city', 'state']).execute();
  },
};

/** The staged columns of a business: name, type, nullable. */
const STAGED_COLUMNS: Array<[string, 'text' | 'integer' | 'double precision', boolean]> = [
  ['id', 'text', false],
  ['alias', 'text', false],
  ['name', 'text', false],
  ['city', 'text', false],
  ['state', 'text', false],
  ['zip_code', 'text', false],
  ['country', 'text', false],
  ['latitude', 'double precision', true],
  ['longitude', 'double precision', true],
  ['rating', 'double precision', false],
  ['review_count', 'integer', false],
  ['price', 'text', true],
  ['is_closed', 'integer', false],
  ['timezone', 'text', false],
  ['record', 'text', false],
  ['phone', 'text', false],
];

/**
 * Every process keeps the catalogue in memory and loads only what changed since it last looked:
 * each change stamps its rows with the next catalogue sequence number. Business Match looks up
 * names within a city, and the staging table takes streamed imports.
 */
export const catalogSequenceMigration: PbsMigration = {
  name: '0009_businesses_catalog_sequence',
  async up(db, dialect) {
    await db.schema
      .alterTable('businesses')
      .addColumn('catalog_seq', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('businesses')
      .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    const phone = dialect === 'postgres' ? sql`record::json->>'phone'` : sql`json_extract(record, '$.phone')`;
    await sql`update businesses set phone = coalesce(${phone}, '')`.execute(db);
    await db.schema.createIndex('businesses_catalog_seq').on('businesses').columns(['catalog_seq', 'id']).execute();
    await sql`create index businesses_city_lookup on businesses (lower(city), country)`.execute(db);
    // The columns of `businesses` as they are now, less its times, plus where each line stands.
    let staging = db.schema
      .createTable('business_import_lines')
      .addColumn('import_id', 'text', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull());
    for (const [name, type, nullable] of STAGED_COLUMNS) staging = staging.addColumn(name, type, (c) => (nullable ? c : c.notNull()));
    await staging
      .addColumn('staged_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('business_import_lines_pk', ['import_id', 'line'])
      .execute();
  },
};
