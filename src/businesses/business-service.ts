import type { Clock } from '../platform/clock.js';
import { isUniqueViolation, type Database, type DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { jsonLineBatches, STALE_STAGING_MS, type LineSource, type SourceRecord } from '../platform/json-lines.js';
import { businessCsvBatches } from './business-csv.js';
import { normalizeBusinessInput, type Business } from './business-record.js';
import { businessColumns, BusinessStore, type BusinessRef } from './business-store.js';
import type { BusinessImportLinesTable } from './business-tables.js';
import { NotSearchableTally, type ImportOutcome } from './import-outcome.js';
import { catalogSequence, nextCatalogSequence } from './catalog-sequence.js';
import { isRecord } from '../platform/values.js';

/** Lines one streamed import takes (the staging table holds them until the import ends). */
export const MAX_IMPORT_LINES = 1_000_000;
/** Lines checked and staged at a time, and per progress report. */
const IMPORT_BATCH = 2_000;
/** Staged lines moved into `businesses` per statement when an import ends. */
const APPLY_CHUNK = 10_000;

const notFound = (idOrAlias: string) => apiError('BUSINESS_NOT_FOUND', `Business not found: ${idOrAlias}`);

/** What other families may ask of the businesses family. */
export type BusinessDirectory = Pick<BusinessService, 'get' | 'requireRef' | 'resolveIds' | 'records' | 'countries' | 'idsInCountries'>;

export interface ImportProgress {
  /** Lines checked and staged so far; `done` once they are in the catalogue. */
  (lines: number, phase: 'staged' | 'done'): void;
}

/** The operator's catalogue of businesses: the records every partner interface reads. */
export class BusinessService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** Called after a change commits, so in-memory copies of the catalogue refresh. */
    private readonly onChanged: () => void = () => {},
  ) {}

  private get db() {
    return this.database.db;
  }

  store(db: DbOrTx = this.db): BusinessStore {
    return new BusinessStore(db);
  }

  async upsert(input: unknown): Promise<{ business: Business; created: boolean }> {
    const explicitAlias = isRecord(input) && typeof input.alias === 'string';
    const business = normalizeBusinessInput(input);
    const saved = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const owner = await store.aliasOwner(business.alias);
      if (owner && owner !== business.id) {
        if (explicitAlias) throw apiError('CONFLICT', `alias ${business.alias} belongs to business ${owner}`);
        business.alias = await freeAlias(business.alias, async (alias) => store.aliasOwner(alias), business.id);
      }
      const { created } = await store.upsert(business, this.clock.now(), await nextCatalogSequence(trx));
      return { business, created };
    });
    this.onChanged();
    return saved;
  }

  /**
   * Imports JSON lines as they arrive, all or nothing (docs/catalogue.md "Imports"): each batch
   * of lines is checked and staged in a short transaction of its own; when the last line is in
   * and every line was good, one transaction moves them all into the catalogue. A bad line
   * stops the import and leaves the catalogue as it was. The body is never held whole.
   */
  async importJsonLines(source: LineSource, onProgress?: ImportProgress): Promise<ImportOutcome> {
    return this.importBusinesses(jsonLineBatches(source, { maxLines: MAX_IMPORT_LINES, batchSize: IMPORT_BATCH }), onProgress);
  }

  /** The same import from CSV with a header row (docs/catalogue.md "Imports"): the same checks, streaming and all-or-nothing. */
  async importCsv(source: LineSource, onProgress?: ImportProgress): Promise<ImportOutcome> {
    return this.importBusinesses(businessCsvBatches(source, { maxLines: MAX_IMPORT_LINES, batchSize: IMPORT_BATCH }), onProgress);
  }

  private async importBusinesses(batches: AsyncIterable<SourceRecord[]>, onProgress?: ImportProgress): Promise<ImportOutcome> {
    const importId = newId();
    const unsearchable = new NotSearchableTally();
    const seenIds = new Set<string>();
    /** Aliases this import gives out, to the business that gets each. */
    const aliases = new Map<string, string>();
    let staged = 0;
    let lastLine = 0;
    const store = this.store();
    try {
      await store.unstage(importId, Date.now() - STALE_STAGING_MS);
      for await (const batch of batches) {
        const parsed = batch.map(({ value, where }) => {
          const business = normalizeBusinessInput(value, where);
          unsearchable.add(business);
          if (seenIds.has(business.id)) throw apiError('VALIDATION_ERROR', `${where}: id ${business.id} appears twice`, { field: 'id' });
          seenIds.add(business.id);
          return { business, where, explicitAlias: typeof value.alias === 'string', line: Number(where.slice(5)) };
        });
        const wanted = new Set(parsed.map((p) => p.business.alias));
        const owners = await store.aliasOwners([...wanted]);
        // This batch's aliases were all looked up at once; a suffixed one (alias-2) is asked for alone.
        const ownerOf = async (alias: string) =>
          aliases.get(alias) ?? (wanted.has(alias) ? owners.get(alias) : await store.aliasOwner(alias));
        const stagedAt = Date.now();
        const lines: BusinessImportLinesTable[] = [];
        for (const p of parsed) {
          const b = p.business;
          const owner = await ownerOf(b.alias);
          if (owner !== undefined && owner !== b.id) {
            if (p.explicitAlias)
              throw apiError('CONFLICT', `${p.where}: alias ${b.alias} belongs to business ${owner}`, { field: 'alias' });
            b.alias = await freeAlias(b.alias, ownerOf, b.id);
          }
          aliases.set(b.alias, b.id);
          lines.push({ ...businessColumns(b), import_id: importId, line: p.line, staged_at: stagedAt });
          lastLine = p.line;
        }
        await this.database.transact((trx) => this.store(trx).stage(lines));
        staged += lines.length;
        onProgress?.(staged, 'staged');
      }
      if (staged === 0) throw apiError('VALIDATION_ERROR', 'The import holds no businesses.');
      const created = await store.countNew(importId);
      await this.database.transact(async (trx) => {
        const seq = await nextCatalogSequence(trx);
        const now = this.clock.now();
        for (let from = 0; from < lastLine; from += APPLY_CHUNK)
          await this.store(trx).applyStaged(importId, from, from + APPLY_CHUNK, now, seq);
        await this.store(trx).unstage(importId, Date.now() - STALE_STAGING_MS);
      });
      await store.analyze(this.database.dialect);
      this.onChanged();
      onProgress?.(staged, 'done');
      return { imported: staged, created, updated: staged - created, ...unsearchable.outcome(staged) };
    } catch (error) {
      await store.unstage(importId, Date.now() - STALE_STAGING_MS).catch(() => {});
      if (isUniqueViolation(error))
        throw apiError('CONFLICT', 'Another change took an alias this import gives out; nothing was imported. Try again.');
      throw error;
    }
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

  /** The last catalogue sequence number given out (the in-memory catalogue loads what changed since it looked). */
  catalogSequence(): Promise<number> {
    return catalogSequence(this.db);
  }

  /** Businesses changed after catalogue sequence number `after` up to `upTo`, a page at a time (see BusinessStore.changedPage). */
  changedPage(after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number) {
    return this.store().changedPage(after, upTo, cursor, limit);
  }

  /** Each given business id that exists → its country (ISO 3166-1 alpha-2, as loaded). */
  countries(ids: string[], db: DbOrTx = this.db): Promise<Map<string, string>> {
    return this.store(db).countries(ids);
  }

  /**
   * The ids of the businesses in these countries (ISO codes, any case), as a subquery for
   * another family's set-based statement (engagement scores a country's businesses in one).
   */
  idsInCountries(countries: readonly string[]) {
    return this.store().idsInCountries(countries);
  }

  /** The records of these business ids (missing ones are absent). */
  records(ids: string[], db: DbOrTx = this.db): Promise<Map<string, Business>> {
    return this.store(db).records(ids);
  }

  async list(filter: { city?: string; q?: string; ids?: string; limit?: number; offset?: number }) {
    const limit = filter.limit ?? 50;
    const offset = filter.offset ?? 0;
    // `ids`: a comma list, at most 100 (the console names the ids a table shows).
    const ids = filter.ids === undefined ? undefined : [...new Set(filter.ids.split(',').filter(Boolean))].slice(0, 100);
    const page = await this.store().list({ city: filter.city, q: filter.q, ids, limit, offset });
    return { ...page, limit, offset };
  }
}

/** `alias`, or the first of `alias-2`, `alias-3`, … that nobody but `id` owns. */
async function freeAlias(alias: string, ownerOf: (alias: string) => Promise<string | undefined>, id: string): Promise<string> {
  for (let n = 2; ; n++) {
    const candidate = `${alias}-${n}`;
    const owner = await ownerOf(candidate);
    if (!owner || owner === id) return candidate;
  }
}
