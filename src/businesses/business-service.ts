import type { Clock } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { normalizeBusinessInput, type Business } from './business-record.js';
import { BusinessStore, type BusinessRef } from './business-store.js';

export const MAX_IMPORT_LINES = 100_000;

const notFound = (idOrAlias: string) => apiError('BUSINESS_NOT_FOUND', `Business not found: ${idOrAlias}`);

/** What other families may ask of the businesses family. */
export type BusinessDirectory = Pick<BusinessService, 'get' | 'requireRef' | 'resolveIds' | 'records' | 'countries'>;

/** The operator's catalogue of businesses: the records every partner interface reads. */
export class BusinessService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Called after a change commits, so in-memory copies of the catalogue refresh. */
    private readonly onChanged: () => void = () => {},
  ) {}

  store(db: DbOrTx = this.db): BusinessStore {
    return new BusinessStore(db);
  }

  async upsert(input: unknown, db: DbOrTx = this.db): Promise<{ business: Business; created: boolean }> {
    const explicitAlias = typeof (input as { alias?: unknown })?.alias === 'string';
    const business = normalizeBusinessInput(input);
    const saved = await this.save(business, explicitAlias, db);
    if (db === this.db) this.onChanged();
    return saved;
  }

  /**
   * Imports JSON lines all or nothing: every line is validated first, and one transaction
   * writes them, so a bad line leaves the catalogue as it was.
   */
  async importJsonLines(text: string): Promise<{ imported: number; created: number; updated: number }> {
    const lines = text.split(/\r?\n/);
    const parsed: Array<{ business: Business; explicitAlias: boolean }> = [];
    const seen = new Set<string>();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (line === '') continue;
      if (parsed.length >= MAX_IMPORT_LINES) throw apiError('PAYLOAD_TOO_LARGE', `At most ${MAX_IMPORT_LINES} businesses per import.`);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw apiError('VALIDATION_ERROR', `line ${i + 1}: not valid JSON`, { field: `line ${i + 1}` });
      }
      const business = normalizeBusinessInput(value, `line ${i + 1}`);
      if (seen.has(business.id)) throw apiError('VALIDATION_ERROR', `line ${i + 1}: id ${business.id} appears twice`, { field: 'id' });
      seen.add(business.id);
      parsed.push({ business, explicitAlias: typeof (value as { alias?: unknown }).alias === 'string' });
    }
    if (parsed.length === 0) throw apiError('VALIDATION_ERROR', 'The import holds no businesses.');
    let created = 0;
    await this.db.transaction().execute(async (trx) => {
      for (const { business, explicitAlias } of parsed) {
        if ((await this.save(business, explicitAlias, trx)).created) created++;
      }
    });
    this.onChanged();
    return { imported: parsed.length, created, updated: parsed.length - created };
  }

  // ---- the one business lookup every family uses ---------------------------------------------

  /** The whole record of a business by id or alias, or 404 BUSINESS_NOT_FOUND. */
  async get(idOrAlias: string, db: DbOrTx = this.db): Promise<Business> {
    const business = await this.store(db).findByIdOrAlias(idOrAlias);
    if (!business) throw notFound(idOrAlias);
    return business;
  }

  /** The few fields most routes need, by id or alias, or 404 BUSINESS_NOT_FOUND. */
  async requireRef(idOrAlias: string, db: DbOrTx = this.db): Promise<BusinessRef> {
    const business = await this.store(db).findRef(idOrAlias);
    if (!business) throw notFound(idOrAlias);
    return business;
  }

  /** Each given id or alias that exists → its business id (unknown ones are absent). */
  resolveIds(idsOrAliases: string[], db: DbOrTx = this.db): Promise<Map<string, string>> {
    return this.store(db).resolveIds(idsOrAliases);
  }

  /** Every business (for the in-memory catalogue). */
  all(db: DbOrTx = this.db): Promise<Business[]> {
    return this.store(db).all();
  }

  /** Each given business id that exists → its country (ISO 3166-1 alpha-2, as loaded). */
  countries(ids: string[], db: DbOrTx = this.db): Promise<Map<string, string>> {
    return this.store(db).countries(ids);
  }

  /** The records of these business ids (missing ones are absent). */
  records(ids: string[], db: DbOrTx = this.db): Promise<Map<string, Business>> {
    return this.store(db).records(ids);
  }

  async list(filter: { city?: string; limit?: number; offset?: number }) {
    const limit = filter.limit ?? 50;
    const offset = filter.offset ?? 0;
    const page = await this.store().list({ city: filter.city, limit, offset });
    return { ...page, limit, offset };
  }

  private async save(business: Business, explicitAlias: boolean, db: DbOrTx) {
    const store = this.store(db);
    const owner = await store.aliasOwner(business.alias);
    if (owner && owner !== business.id) {
      if (explicitAlias) throw apiError('CONFLICT', `alias ${business.alias} belongs to business ${owner}`);
      business.alias = await this.freeAlias(store, business.alias, business.id);
    }
    const { created } = await store.upsert(business, this.clock.now());
    return { business, created };
  }

  private async freeAlias(store: BusinessStore, alias: string, id: string): Promise<string> {
    for (let n = 2; ; n++) {
      const candidate = `${alias}-${n}`;
      const owner = await store.aliasOwner(candidate);
      if (!owner || owner === id) return candidate;
    }
  }
}
