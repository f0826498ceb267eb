import { sql, type Insertable } from 'kysely';
import { fromFlag, toFlag, type DbOrTx, type Dialect } from '../platform/db/database.js';
import type { Business } from './business-record.js';
import type { MatchCandidate } from './business-match.js';
import type { BusinessesTable, BusinessImportLinesTable } from './business-tables.js';
import { fromJson, toJson, type Json } from '../platform/values.js';
import { keysetAfter } from '../platform/db/keyset.js';

/** The columns of a business (the staged line of an import has the same, less the times). */
export function businessColumns(b: Business): Omit<BusinessesTable, 'created_at' | 'updated_at' | 'catalog_seq'> {
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
    record: toJson(b),
    phone: b.phone,
  };
}

/** Columns an import's upsert replaces (everything but the id and when it was created). */
const REPLACED = [
  'alias',
  'name',
  'city',
  'state',
  'zip_code',
  'country',
  'latitude',
  'longitude',
  'rating',
  'review_count',
  'price',
  'is_closed',
  'timezone',
  'record',
  'phone',
] as const;

export interface BusinessRef {
  id: string;
  alias: string;
  name: string;
  timezone: string;
  isClosed: boolean;
}

export function fromRecord(record: Json<Business>, isClosed?: number): Business {
  const b = fromJson(record);
  if (isClosed !== undefined) b.is_closed = fromFlag(isClosed);
  // Records stored before these fields were settled: an address line was null, is_claimed absent.
  b.location.address1 ??= '';
  b.location.address2 ??= '';
  b.location.address3 ??= '';
  b.is_claimed ??= false;
  return b;
}

export class BusinessStore {
  constructor(private readonly db: DbOrTx) {}

  /** Insert or replace by id, stamped with catalogue sequence number `seq`; `created` tells which happened. */
  async upsert(b: Business, now: number, seq: number): Promise<{ created: boolean }> {
    const row: Insertable<BusinessesTable> = { ...businessColumns(b), created_at: now, updated_at: now, catalog_seq: seq };
    const existing = await this.db.selectFrom('businesses').select('id').where('id', '=', b.id).executeTakeFirst();
    const { created_at: _created, id: _id, ...update } = row;
    await this.db
      .insertInto('businesses')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(update))
      .execute();
    return { created: !existing };
  }

  /**
   * Businesses changed after catalogue sequence number `after` up to `upTo`, in (seq, id) order,
   * `limit` at a time from `cursor` (the last row of the previous page).
   */
  async changedPage(after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number) {
    const query = this.db.selectFrom('businesses').select(['id', 'record', 'is_closed', 'catalog_seq']).where('catalog_seq', '<=', upTo);
    const rows = await keysetAfter(query, { sequence: 'catalog_seq', id: 'id' }, after, cursor)
      .orderBy('catalog_seq')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.catalog_seq), business: fromRecord(r.record, r.is_closed) }));
  }

  /** The businesses of a city (Business Match's candidates), with what matching compares first. */
  async matchCandidates(city: string, state: string, country: string, limit: number): Promise<MatchCandidate[]> {
    const rows = await this.db
      .selectFrom('businesses')
      .select(['id', 'name', 'zip_code', 'latitude', 'longitude', 'phone'])
      .where(sql<boolean>`lower(city) = lower(${city})`)
      .where('country', '=', country)
      .where(sql<boolean>`upper(state) = upper(${state})`)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, zip: r.zip_code, latitude: r.latitude, longitude: r.longitude, phone: r.phone }));
  }

  /** Which of `aliases` belong to a business, and to which. */
  async aliasOwners(aliases: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < aliases.length; i += 500) {
      const rows = await this.db
        .selectFrom('businesses')
        .select(['id', 'alias'])
        .where('alias', 'in', aliases.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(r.alias, r.id);
    }
    return out;
  }

  // ---- streamed imports (business_import_lines) ---------------------------------------------

  async stage(lines: BusinessImportLinesTable[]): Promise<void> {
    // A statement's parameters are limited (SQLite: 32,766): 18 columns × 500 rows stays below.
    for (let i = 0; i < lines.length; i += 500)
      await this.db
        .insertInto('business_import_lines')
        .values(lines.slice(i, i + 500))
        .execute();
  }

  /** Staged lines of an import whose business does not exist yet. */
  async countNew(importId: string): Promise<number> {
    const row = await this.db
      .selectFrom('business_import_lines as s')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('s.import_id', '=', importId)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('businesses as b').select('b.id').whereRef('b.id', '=', 's.id'))))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Moves staged lines (from, to] of an import into `businesses`, each an insert or a replacement. */
  async applyStaged(importId: string, from: number, to: number, now: number, seq: number): Promise<void> {
    await this.db
      .insertInto('businesses')
      .columns(['id', ...REPLACED, 'created_at', 'updated_at', 'catalog_seq'])
      .expression((eb) =>
        eb
          .selectFrom('business_import_lines')
          .select(['id', ...REPLACED])
          // Typed, or PostgreSQL reads the parameters as text.
          .select([
            sql<number>`cast(${now} as bigint)`.as('created_at'),
            sql<number>`cast(${now} as bigint)`.as('updated_at'),
            sql<number>`cast(${seq} as bigint)`.as('catalog_seq'),
          ])
          .where('import_id', '=', importId)
          .where('line', '>', from)
          .where('line', '<=', to),
      )
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          ...Object.fromEntries(REPLACED.map((c) => [c, eb.ref(`excluded.${c}`)])),
          updated_at: eb.ref('excluded.updated_at'),
          catalog_seq: eb.ref('excluded.catalog_seq'),
        })),
      )
      .execute();
  }

  /**
   * PostgreSQL: refreshes the planner's statistics after a bulk change. Until autovacuum gets to
   * it, the planner takes the table for as small as before the import, and the catalogue's
   * paged load sorted the whole table for every page (a 100,000-row load: 7 s instead of 1).
   */
  async analyze(dialect: Dialect): Promise<void> {
    if (dialect === 'postgres') await sql`analyze businesses`.execute(this.db);
  }

  /** Forgets an import's staged lines, and any left behind by an import that never finished. */
  async unstage(importId: string, staleBefore: number): Promise<void> {
    await this.db
      .deleteFrom('business_import_lines')
      .where((eb) => eb.or([eb('import_id', '=', importId), eb('staged_at', '<', staleBefore)]))
      .execute();
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
  /** The ids of the businesses in these countries (ISO codes, any case), as a subquery. */
  idsInCountries(countries: readonly string[]) {
    return this.db
      .selectFrom('businesses')
      .select('id')
      .where(sql<string>`upper(country)`, 'in', [...countries]);
  }

  async countries(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.db
        .selectFrom('businesses')
        .select(['id', 'country'])
        .where('id', 'in', ids.slice(i, i + 1000))
        .execute();
      for (const r of rows) out.set(r.id, r.country);
    }
    return out;
  }

  async records(ids: string[]): Promise<Map<string, Business>> {
    const out = new Map<string, Business>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('businesses')
        .select(['id', 'record'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(r.id, fromRecord(r.record));
    }
    return out;
  }

  /** A page of businesses by name; `q`: names starting with it (any case), or the business with that id or alias. */
  async list(filter: {
    city?: string;
    q?: string;
    ids?: string[];
    limit: number;
    offset: number;
  }): Promise<{ total: number; businesses: Business[] }> {
    let base = this.db.selectFrom('businesses');
    if (filter.city) base = base.where('city', '=', filter.city);
    if (filter.ids) base = base.where('id', 'in', filter.ids.length > 0 ? filter.ids : ['']);
    const q = filter.q;
    if (q) {
      // The typed text is literal: LIKE's wildcards in it are escaped.
      const prefix = `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      base = base.where((eb) => eb.or([eb(sql`lower(name)`, 'like', sql`${prefix} escape '\\'`), eb('id', '=', q), eb('alias', '=', q)]));
    }
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.select('record').orderBy('name').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
    return { total: Number(total.n), businesses: rows.map((r) => fromRecord(r.record)) };
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('businesses')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
