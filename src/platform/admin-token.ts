import { apiError } from './errors.js';
import { randomBase62, secretMatches, sha256Hex } from './ids.js';
import { SettingsStore } from './settings.js';
import type { DbOrTx } from './db/database.js';

const KEY = 'admin_token_hash';
/** What the stored hash (or PBS_ADMIN_TOKEN) is once the bootstrap token is turned off: no token hashes to it. */
export const BOOTSTRAP_OFF = 'off';
/** How long the stored token's hash is trusted before it is read again (wall time). */
const TRUST_MS = 1000;

/**
 * The operator token: PBS_ADMIN_TOKEN when set, otherwise generated once and stored as a hash.
 * The stored hash is re-read every second, and at once when a token does not match, so a token
 * replaced by `pbs admin-token reset` (another process) is accepted, and the old one refused,
 * without a restart.
 */
export class AdminToken {
  private hash: string | undefined;
  private readAt = 0;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly settings: SettingsStore,
    private readonly configured: string | undefined,
    private readonly wallNow: () => number = Date.now,
  ) {
    if (configured) this.hash = configured === BOOTSTRAP_OFF ? BOOTSTRAP_OFF : sha256Hex(configured);
  }

  /** Whether the bootstrap token is turned off (PBS_ADMIN_TOKEN=off, or `turnOff` once operator accounts exist). */
  async isOff(): Promise<boolean> {
    return (
      (await this.currentHash()) === undefined && (this.configured === BOOTSTRAP_OFF || (await this.settings.get(KEY)) === BOOTSTRAP_OFF)
    );
  }

  /** Loads the stored token, or (when `generate`) creates one; answers a created token, to be shown once. */
  async load(generate: boolean): Promise<string | undefined> {
    if (this.configured) return undefined;
    if (!generate) return void (await this.refresh());
    const candidate = `pbs_admin_${randomBase62(32)}`;
    this.hash = await this.settings.setIfAbsent(KEY, sha256Hex(candidate));
    this.readAt = this.wallNow();
    return this.hash === sha256Hex(candidate) ? candidate : undefined;
  }

  async matches(token: string): Promise<boolean> {
    if (this.configured) return this.hash !== BOOTSTRAP_OFF && secretMatches(token, this.hash!);
    if (this.wallNow() - this.readAt > TRUST_MS) await this.refresh();
    if (this.hash !== undefined && this.hash !== BOOTSTRAP_OFF && secretMatches(token, this.hash)) return true;
    // Perhaps replaced a moment ago; failed attempts are throttled, so this read is bounded.
    await this.refresh();
    return this.hash !== undefined && this.hash !== BOOTSTRAP_OFF && secretMatches(token, this.hash);
  }

  /** The current token's hash (console sessions are signed over it, so a new token ends them). */
  async currentHash(): Promise<string | undefined> {
    if (!this.configured && this.wallNow() - this.readAt > TRUST_MS) await this.refresh();
    return this.hash === BOOTSTRAP_OFF ? undefined : this.hash;
  }

  /**
   * Turns the bootstrap token off (production, once operator accounts exist): it and the console
   * sessions it started stop working at once in every process; `pbs admin-token reset` (a shell on
   * the server) issues a new one.
   */
  async turnOff(db: DbOrTx): Promise<void> {
    if (this.configured) throw apiError('CONFLICT', 'PBS_ADMIN_TOKEN is set: set it to "off" there instead.');
    await new SettingsStore(db).set(KEY, BOOTSTRAP_OFF);
    this.hash = BOOTSTRAP_OFF;
    this.readAt = this.wallNow();
  }

  private refresh(): Promise<void> {
    this.reading ??= this.settings
      .get(KEY)
      .then((hash) => {
        this.hash = hash;
        this.readAt = this.wallNow();
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Replaces the stored token (when the printed one was lost); answers the new one. */
  static async reset(settings: SettingsStore): Promise<string> {
    const token = `pbs_admin_${randomBase62(32)}`;
    await settings.set(KEY, sha256Hex(token));
    return token;
  }
}
