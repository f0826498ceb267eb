import { forUpdateOn, type Dialect, type DbOrTx } from './db/database.js';
import './db/platform-tables.js';

/** Small key/value store for process-wide state that must survive restarts (clock, secrets). */
export class SettingsStore {
  constructor(private readonly db: DbOrTx) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  /** Reads the value and, on PostgreSQL, locks its row until the transaction ends (SQLite's writer already holds the only lock). */
  async getForUpdate(key: string, dialect: Dialect): Promise<string | undefined> {
    const row = await forUpdateOn(this.db.selectFrom('settings').select('value').where('key', '=', key), dialect).executeTakeFirst();
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  /** Stores `value` only when the key is absent; returns whichever value is stored afterwards. */
  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return (await this.get(key))!;
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', key).execute();
  }
}
