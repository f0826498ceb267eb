import { createHmac } from 'node:crypto';
import type { DbOrTx } from './db/database.js';
import { randomBase62 } from './ids.js';
import { SettingsStore } from './settings.js';

/**
 * Keys for what pbs derives rather than stores (OAuth access tokens, page CSRF tokens), each
 * derived from one root secret and named by its purpose, so no key serves two uses.
 *
 * The root comes from PBS_SECRET_KEY, which production requires: then a copy of the database
 * alone does not let anyone derive a live token. A sandbox without it generates one and keeps it
 * in the database (settings), which is convenient and only as safe as the database.
 */
export class SecretKeys {
  private root: Promise<string> | undefined;
  private readonly derived = new Map<string, Buffer>();

  constructor(
    private readonly db: DbOrTx,
    private readonly configured: string | undefined,
  ) {}

  async key(purpose: string): Promise<Buffer> {
    const hit = this.derived.get(purpose);
    if (hit) return hit;
    this.root ??=
      this.configured !== undefined
        ? Promise.resolve(this.configured)
        : new SettingsStore(this.db).setIfAbsent('sandbox_secret_key', randomBase62(64));
    const key = createHmac('sha256', await this.root)
      .update(`pbs:${purpose}`)
      .digest();
    this.derived.set(purpose, key);
    return key;
  }
}
