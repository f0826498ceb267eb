import type { BusinessDirectory } from '../businesses/business-service.js';
import { nextCatalogSequence } from '../businesses/catalog-sequence.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { ApiError, apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { jsonLineBatches, STALE_STAGING_MS, type LineSource } from '../platform/json-lines.js';
import { normalizeSettings, type ReservationSettings } from './inventory.js';
import { InventoryStore } from './inventory-store.js';
import type { SettingsImportLinesTable, TableImportLinesTable } from './inventory-tables.js';
import { toJson } from '../platform/values.js';

/** Lines one streamed settings import takes. */
const MAX_SETTINGS_LINES = 1_000_000;
/** Lines checked and staged at a time, and per progress report. */
const IMPORT_BATCH = 2_000;

/**
 * Imports settings as JSON lines `{"business_id": …, "settings": {…}}` as they arrive, all or
 * nothing, the way businesses are imported (docs/catalogue.md "Imports"): each batch is checked
 * and staged; when every line is in and good, one transaction puts them in place. The caller
 * tells the catalogue.
 */
export async function importSettings(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  source: LineSource,
  onProgress?: (lines: number, phase: 'staged' | 'done') => void,
): Promise<{ imported: number }> {
  const db = database.db;
  const importId = newId();
  const seen = new Set<string>();
  const store = new InventoryStore(db);
  let staged = 0;
  try {
    await store.unstage(importId, Date.now() - STALE_STAGING_MS);
    for await (const batch of jsonLineBatches(source, { maxLines: MAX_SETTINGS_LINES, batchSize: IMPORT_BATCH })) {
      const given = batch.map(({ value }) => (typeof value.business_id === 'string' ? value.business_id : ''));
      const resolved = await businesses.resolveIds([...new Set(given.filter((id) => id !== '' && id.length <= 200))]);
      const stagedAt = Date.now();
      const settingsLines: SettingsImportLinesTable[] = [];
      const tableLines: TableImportLinesTable[] = [];
      batch.forEach(({ value, where }, i) => {
        const businessId = resolved.get(given[i]);
        if (!businessId)
          throw apiError('VALIDATION_ERROR', `${where}: unknown business_id ${String(value.business_id).slice(0, 100)}`, {
            field: 'business_id',
          });
        if (seen.has(businessId))
          throw apiError('VALIDATION_ERROR', `${where}: business ${businessId} appears twice`, { field: 'business_id' });
        seen.add(businessId);
        let settings: ReservationSettings;
        try {
          settings = normalizeSettings(value.settings);
        } catch (error) {
          if (error instanceof ApiError) throw apiError('VALIDATION_ERROR', `${where}: ${error.message}`, { field: 'settings' });
          throw error;
        }
        const line = Number(where.slice(5));
        settingsLines.push({
          import_id: importId,
          line,
          business_id: businessId,
          accepts_reservations: settings.accepts_reservations ? 1 : 0,
          settings: toJson(settings),
          staged_at: stagedAt,
        });
        for (const t of settings.tables)
          tableLines.push({
            import_id: importId,
            line,
            id: newId(),
            business_id: businessId,
            name: t.name,
            min_party: t.min_party,
            max_party: t.max_party,
          });
      });
      await database.transact((trx) => new InventoryStore(trx).stage(settingsLines, tableLines));
      staged += settingsLines.length;
      onProgress?.(staged, 'staged');
    }
    if (staged === 0) throw apiError('VALIDATION_ERROR', 'The import holds no settings.');
    await database.transact(async (trx) => {
      const now = clock.now();
      await new InventoryStore(trx).applyStaged(importId, now, await nextCatalogSequence(trx));
      await new InventoryStore(trx).unstage(importId, Date.now() - STALE_STAGING_MS);
    });
    await store.analyze(database.dialect);
  } catch (error) {
    await store.unstage(importId, Date.now() - STALE_STAGING_MS).catch(() => {});
    throw error;
  }
  return { imported: staged };
}
