import type { PbsMigration } from '../platform/db/migrate.js';
import { fromFlag, toFlag, type DbOrTx } from '../platform/db/database.js';
import type { Business } from './business-record.js';
import { bumpCatalogVersion } from './catalog-version.js';

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
  record: string;
  created_at: number;
  updated_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    businesses: BusinessesTable;
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

function toRow(b: Business, now: number): BusinessesTable {
  return {
    id: b.id,
    alias: b.alias,
    name: b.name,
    city: b.location.city,
    state: b.location.state,
    zip_code: b.location.zip_code,
    country: b.location.country,
    latitude: b.coordinates.latitude,
    longitude: b.coordinates.longitude,
    rating: b.rating,
    review_count: b.review_count,
    price: b.price ?? null,
    is_closed: toFlag(b.is_closed),
    timezone: b.timezone,
    record: JSON.stringify(b),
    created_at: now,
    updated_at: now,
  };
}


export interface BusinessRef {
  id: string;
  alias: string;
  name: string;
  timezone: string;
  isClosed: boolean;
}

export function fromRecord(record: string, isClosed?: number): Business {
  const b = JSON.parse(record) as Business;
  if (isClosed !== undefined) b.is_closed = fromFlag(isClosed);
  return b;
}

export class BusinessStore {
  constructor(private readonly db: DbOrTx) {}

  /** Insert or replace by id; `created` tells which happened. */
  async upsert(b: Business, now: number): Promise<{ created: boolean }> {
    const row = toRow(b, now);
    const existing = await this.db.selectFrom('businesses').select('id').where('id', '=', b.id).executeTakeFirst();
    const { created_at: _created, id: _id, ...update } = row;
    await this.db
      .insertInto('businesses')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(update))
      .execute();
    await bumpCatalogVersion(this.db);
    return { created: !existing };
  }

  async findByIdOrAlias(idOrAlias: string): Promise<Business | undefined> {
    const row = await this.db
      .selectFrom('businesses')
      .select(['record'])
      .where((eb) => eb.or([eb('id', '=', idOrAlias), eb('alias', '=', idOrAlias)]))
      .executeTakeFirst();
    return row ? fromRecord(row.record) : undefined;
  }

  /** The few columns most partner routes need, without parsing the whole record. */
  async findRef(idOrAlias: string): Promise<BusinessRef | undefined> {
    const row = await this.db
      .selectFrom('businesses')
      .select(['id', 'alias', 'name', 'timezone', 'is_closed'])
      .where((eb) => eb.or([eb('id', '=', idOrAlias), eb('alias', '=', idOrAlias)]))
      .executeTakeFirst();
    return row ? { id: row.id, alias: row.alias, name: row.name, timezone: row.timezone, isClosed: fromFlag(row.is_closed) } : undefined;
  }

  async aliasOwner(alias: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('businesses').select('id').where('alias', '=', alias).executeTakeFirst();
    return row?.id;
  }

  /** Maps each given id or alias that exists to its business id (unknown ones are absent). */
  async resolveIds(idsOrAliases: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < idsOrAliases.length; i += 500) {
      const chunk = idsOrAliases.slice(i, i + 500);
      const rows = await this.db
        .selectFrom('businesses')
        .select(['id', 'alias'])
        .where((eb) => eb.or([eb('id', 'in', chunk), eb('alias', 'in', chunk)]))
        .execute();
      for (const r of rows) {
        out.set(r.id, r.id);
        out.set(r.alias, r.id);
      }
    }
    return out;
  }

  /** Each given business id that exists → its country code. */
  async countries(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.db.selectFrom('businesses').select(['id', 'country']).where('id', 'in', ids.slice(i, i + 1000)).execute();
      for (const r of rows) out.set(r.id, r.country);
    }
    return out;
  }

  async records(ids: string[]): Promise<Map<string, Business>> {
    const out = new Map<string, Business>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db.selectFrom('businesses').select(['id', 'record']).where('id', 'in', ids.slice(i, i + 500)).execute();
      for (const r of rows) out.set(r.id, fromRecord(r.record));
    }
    return out;
  }

  async list(filter: { city?: string; limit: number; offset: number }): Promise<{ total: number; businesses: Business[] }> {
    let base = this.db.selectFrom('businesses');
    if (filter.city) base = base.where('city', '=', filter.city);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.select('record').orderBy('name').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
    return { total: Number(total.n), businesses: rows.map((r) => fromRecord(r.record)) };
  }

  /** Every business, closed ones marked so (the in-memory catalogue loads them all). */
  async all(): Promise<Business[]> {
    const rows = await this.db.selectFrom('businesses').select(['record', 'is_closed']).execute();
    return rows.map((r) => fromRecord(r.record, r.is_closed));
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('businesses').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
