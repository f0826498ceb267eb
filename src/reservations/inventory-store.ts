import { sql } from 'kysely';
import type { DbOrTx, Dialect } from '../platform/db/database.js';
import type { ReservationSettings } from './inventory.js';
import { catalogInterner } from '../platform/intern.js';
import { internSettings } from './inventory.js';
import { fromJson, toJson } from '../platform/values.js';
import { keysetAfter } from '../platform/db/keyset.js';
import type { InventoryTable, SettingsImportLinesTable, TableImportLinesTable } from './inventory-tables.js';

/** A restaurant's reservation model as the catalogue loads it. */
export interface InventoryRow {
  seq: number;
  businessId: string;
  settings: ReservationSettings;
  /** Active tables, smallest first (the order tables are offered in). */
  tables: InventoryTable[];
}

/** Settings and tables of restaurants: the operator's inventory behind every opening. */
export class InventoryStore {
  constructor(private readonly db: DbOrTx) {}

  /** Saves one restaurant's settings and tables, stamped with catalogue sequence number `seq`. */
  async saveSettings(businessId: string, settings: ReservationSettings, tableIds: (name: string) => string, now: number, seq: number) {
    const row = {
      business_id: businessId,
      accepts_reservations: settings.accepts_reservations ? 1 : 0,
      settings: toJson(settings),
      updated_at: now,
      catalog_seq: seq,
    };
    await this.db
      .insertInto('restaurant_settings')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('business_id')
          .doUpdateSet({ accepts_reservations: row.accepts_reservations, settings: row.settings, updated_at: now, catalog_seq: seq }),
      )
      .execute();
    await this.db
      .insertInto('booking_versions')
      .values({ business_id: businessId, version: 0 })
      .onConflict((oc) => oc.column('business_id').doNothing())
      .execute();
    await this.db.updateTable('restaurant_tables').set({ active: 0 }).where('business_id', '=', businessId).execute();
    for (const t of settings.tables) {
      await this.db
        .insertInto('restaurant_tables')
        .values({ id: tableIds(t.name), business_id: businessId, name: t.name, min_party: t.min_party, max_party: t.max_party, active: 1 })
        .onConflict((oc) => oc.columns(['business_id', 'name']).doUpdateSet({ min_party: t.min_party, max_party: t.max_party, active: 1 }))
        .execute();
    }
  }

  /**
   * Restaurants whose inventory changed after catalogue sequence number `after` up to `upTo`, in
   * (seq, business) order, `limit` at a time from `cursor` (the last row of the previous page).
   */
  async changedPage(after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number): Promise<InventoryRow[]> {
    const query = this.db
      .selectFrom('restaurant_settings')
      .select(['business_id', 'settings', 'catalog_seq'])
      .where('catalog_seq', '<=', upTo);
    const rows = await keysetAfter(query, { sequence: 'catalog_seq', id: 'business_id' }, after, cursor)
      .orderBy('catalog_seq')
      .orderBy('business_id')
      .limit(limit)
      .execute();
    const tables = new Map<string, InventoryTable[]>();
    for (let i = 0; i < rows.length; i += 500) {
      const found = await this.db
        .selectFrom('restaurant_tables')
        .select(['id', 'business_id', 'name', 'min_party', 'max_party'])
        .where(
          'business_id',
          'in',
          rows.slice(i, i + 500).map((r) => r.business_id),
        )
        .where('active', '=', 1)
        .orderBy('max_party')
        .orderBy('name')
        .execute();
      for (const { business_id: businessId, ...t } of found) {
        const table = { ...t, name: catalogInterner.string(t.name) };
        const list = tables.get(businessId);
        if (list) list.push(table);
        else tables.set(businessId, [table]);
      }
    }
    return rows.map((r) => ({
      seq: Number(r.catalog_seq),
      businessId: r.business_id,
      settings: internSettings(fromJson(r.settings)),
      tables: tables.get(r.business_id) ?? [],
    }));
  }

  // ---- streamed imports ----------------------------------------------------------------------

  async stage(settings: SettingsImportLinesTable[], tables: TableImportLinesTable[]): Promise<void> {
    for (let i = 0; i < settings.length; i += 1000)
      await this.db
        .insertInto('settings_import_lines')
        .values(settings.slice(i, i + 1000))
        .execute();
    for (let i = 0; i < tables.length; i += 2000)
      await this.db
        .insertInto('table_import_lines')
        .values(tables.slice(i, i + 2000))
        .execute();
  }

  /** Moves an import's staged settings and tables into place; tables it does not name take no new parties. */
  async applyStaged(importId: string, now: number, seq: number): Promise<void> {
    await this.db
      .insertInto('restaurant_settings')
      .columns(['business_id', 'accepts_reservations', 'settings', 'updated_at', 'catalog_seq'])
      .expression((eb) =>
        eb
          .selectFrom('settings_import_lines')
          .select(['business_id', 'accepts_reservations', 'settings'])
          // Typed, or PostgreSQL reads the parameters as text.
          .select([sql<number>`cast(${now} as bigint)`.as('updated_at'), sql<number>`cast(${seq} as bigint)`.as('catalog_seq')])
          .where('import_id', '=', importId),
      )
      .onConflict((oc) =>
        oc.column('business_id').doUpdateSet((eb) => ({
          accepts_reservations: eb.ref('excluded.accepts_reservations'),
          settings: eb.ref('excluded.settings'),
          updated_at: eb.ref('excluded.updated_at'),
          catalog_seq: eb.ref('excluded.catalog_seq'),
        })),
      )
      .execute();
    await this.db
      .insertInto('booking_versions')
      .columns(['business_id', 'version'])
      .expression((eb) =>
        eb
          .selectFrom('settings_import_lines')
          .select(['business_id', sql<number>`cast(0 as bigint)`.as('version')])
          .where('import_id', '=', importId),
      )
      .onConflict((oc) => oc.column('business_id').doNothing())
      .execute();
    await this.db
      .updateTable('restaurant_tables')
      .set({ active: 0 })
      .where('business_id', 'in', (eb) => eb.selectFrom('settings_import_lines').select('business_id').where('import_id', '=', importId))
      .execute();
    await this.db
      .insertInto('restaurant_tables')
      .columns(['id', 'business_id', 'name', 'min_party', 'max_party', 'active'])
      .expression((eb) =>
        eb
          .selectFrom('table_import_lines')
          .select(['id', 'business_id', 'name', 'min_party', 'max_party', sql<number>`1`.as('active')])
          .where('import_id', '=', importId),
      )
      .onConflict((oc) =>
        oc
          .columns(['business_id', 'name'])
          .doUpdateSet((eb) => ({ min_party: eb.ref('excluded.min_party'), max_party: eb.ref('excluded.max_party'), active: 1 })),
      )
      .execute();
  }

  /** PostgreSQL: refreshes the planner's statistics after a bulk change (see BusinessStore.analyze). */
  async analyze(dialect: Dialect): Promise<void> {
    if (dialect === 'postgres') await sql`analyze restaurant_settings, restaurant_tables`.execute(this.db);
  }

  /** Forgets an import's staged lines, and any left behind by an import that never finished. */
  async unstage(importId: string, staleBefore: number): Promise<void> {
    await this.db.deleteFrom('table_import_lines').where('import_id', '=', importId).execute();
    await this.db
      .deleteFrom('settings_import_lines')
      .where((eb) => eb.or([eb('import_id', '=', importId), eb('staged_at', '<', staleBefore)]))
      .execute();
    // Tables of imports that never finished: those whose settings lines are gone.
    await this.db
      .deleteFrom('table_import_lines')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('settings_import_lines as s').select('s.import_id').whereRef('s.import_id', '=', 'table_import_lines.import_id'),
          ),
        ),
      )
      .execute();
  }
}
