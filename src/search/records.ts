import { publicFields, type Business } from '../businesses/business-record.js';
import type { CatalogBusiness } from '../catalog/catalog.js';
import type { AtOnceOrLater } from '../platform/at-once.js';

/**
 * A business's public search record as UTF-8 JSON, in the parts that do not change between
 * searches: everything up to `attributes` and the `"distance":` key after it (`head`), and its
 * `business_hours` as they read when it is open and when it is closed. A search answer copies
 * these and writes only the distance, the openings and the closing brace.
 */
export interface RecordParts {
  revision: number;
  head: Buffer;
  hoursOpen: Buffer;
  hoursClosed: Buffer;
}

function partsOf(b: Business, revision: number): RecordParts {
  const head = JSON.stringify(publicFields(b));
  const hours = (open: boolean) =>
    Buffer.from(`,"business_hours":${JSON.stringify(b.hours.map((h) => ({ hours_type: h.hours_type, open: h.open, is_open_now: open })))}`);
  return { revision, head: Buffer.from(`${head.slice(0, -1)},"distance":`), hoursOpen: hours(true), hoursClosed: hours(false) };
}

/**
 * The search records of recently shown businesses, as JSON parts, so a search page is put
 * together from text instead of records read and serialised again (the catalogue keeps no
 * records: at a million businesses they would not fit). A record is read from the database on
 * its first showing and after each change of its business; at most `max` are kept.
 */
export class SearchRecords {
  private readonly kept = new Map<string, RecordParts>();

  constructor(
    private readonly load: (ids: string[]) => Promise<Map<string, Business>>,
    private readonly max = 50_000,
  ) {}

  /**
   * The parts of each business, in order (undefined where its record is gone): at once when all
   * are kept (nearly always), else a promise, the missing ones read in one query.
   */
  get(businesses: readonly CatalogBusiness[]): AtOnceOrLater<Array<RecordParts | undefined>> {
    const found: Array<RecordParts | undefined> = [];
    let missing: number[] | undefined;
    for (let i = 0; i < businesses.length; i++) {
      const kept = this.kept.get(businesses[i].id);
      if (kept && kept.revision === businesses[i].revision) found.push(kept);
      else {
        found.push(undefined);
        (missing ??= []).push(i);
      }
    }
    return missing ? this.read(businesses, found, missing) : found;
  }

  private async read(businesses: readonly CatalogBusiness[], found: Array<RecordParts | undefined>, missing: number[]) {
    const records = await this.load(missing.map((i) => businesses[i].id));
    for (const i of missing) {
      const b = businesses[i];
      const record = records.get(b.id);
      if (!record) continue;
      if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(b.id, (found[i] = partsOf(record, b.revision)));
    }
    return found;
  }
}
