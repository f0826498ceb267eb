import type { Business } from '../businesses/business-record.js';
import type { CatalogBusiness } from '../catalog/catalog.js';

/**
 * A business's public search record as JSON text, in the parts that do not change between
 * searches: everything up to `attributes` (`head`, without its closing brace) and each
 * `business_hours` entry without its `is_open_now` (`hours`).
 */
export interface RecordParts {
  revision: number;
  head: string;
  hours: string[];
}

/** The parts of the public record (facts.md §2.2) that the search answer shares with business details. */
export function publicFields(b: Business) {
  return {
    id: b.id,
    alias: b.alias,
    name: b.name,
    image_url: b.image_url,
    is_closed: b.is_closed,
    url: b.url,
    review_count: b.review_count,
    categories: b.categories,
    rating: b.rating,
    coordinates: b.coordinates,
    transactions: b.transactions,
    ...(b.price ? { price: b.price } : {}),
    location: b.location,
    phone: b.phone,
    display_phone: b.display_phone,
    attributes: b.attributes,
  };
}

function partsOf(b: Business, revision: number): RecordParts {
  const head = JSON.stringify(publicFields(b));
  return {
    revision,
    head: head.slice(0, -1),
    hours: b.hours.map((h) => JSON.stringify({ hours_type: h.hours_type, open: h.open }).slice(0, -1)),
  };
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

  /** The parts of each business, in order (undefined where its record is gone); reads the missing ones in one query. */
  async get(businesses: readonly CatalogBusiness[]): Promise<Array<RecordParts | undefined>> {
    const missing: CatalogBusiness[] = [];
    for (const b of businesses) {
      const kept = this.kept.get(b.id);
      if (!kept || kept.revision !== b.revision) missing.push(b);
    }
    if (missing.length > 0) {
      const records = await this.load(missing.map((b) => b.id));
      for (const b of missing) {
        const record = records.get(b.id);
        if (!record) continue;
        if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!);
        this.kept.set(b.id, partsOf(record, b.revision));
      }
    }
    return businesses.map((b) => this.kept.get(b.id));
  }
}
