import type { DbOrTx } from '../platform/db/database.js';
import { newId } from '../platform/ids.js';
import { SettingsStore } from '../platform/settings.js';

/**
 * The catalogue version: a settings key bumped by every write to businesses or reservation
 * inventory, so in-memory copies in every process know to reload (see Catalog).
 */
export const CATALOG_VERSION_KEY = 'catalog_version';

/** Call in the transaction of a change to businesses or reservation inventory. */
export async function bumpCatalogVersion(db: DbOrTx): Promise<void> {
  await new SettingsStore(db).set(CATALOG_VERSION_KEY, newId());
}

export async function catalogVersion(db: DbOrTx): Promise<string | undefined> {
  return new SettingsStore(db).get(CATALOG_VERSION_KEY);
}
