import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { judge, type MatchQuery } from './business-match.js';
import { publicFields, type Business } from './business-record.js';
import { BusinessStore } from './business-store.js';
import { isOpenAt } from './hours.js';

/** Businesses of one city read for a match at most (a very large city's names are compared in memory). */
const MAX_CANDIDATES = 200_000;
/** Candidates whose records are read to compare addresses: the best by name, phone, postal code and distance. */
const SHORTLIST = 50;

/**
 * The public lookups of the catalogue: Business Match and business details (docs/contract/search.md §2.2–2.3;
 * docs/business-match.md). They read the database, not the in-memory catalogue: a match or a
 * detail is asked for once per business a partner sets up, not once per page view.
 */
export class BusinessLookup {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** `GET /v3/businesses/matches`: the businesses of the city that the record describes, best first. */
  async match(query: MatchQuery) {
    const store = new BusinessStore(this.db);
    const candidates = await store.matchCandidates(query.city, query.state, query.country, MAX_CANDIDATES);
    const shortlist = candidates
      .map((candidate) => ({ candidate, first: judge(query, candidate) }))
      .sort((a, b) => b.first.score - a.first.score || (a.candidate.id < b.candidate.id ? -1 : 1))
      .slice(0, SHORTLIST);
    const records = await store.records(shortlist.map((s) => s.candidate.id));
    const matched: Array<{ business: Business; score: number }> = [];
    for (const { candidate } of shortlist) {
      const business = records.get(candidate.id);
      if (!business) continue;
      const verdict = judge(query, { ...candidate, address1: business.location.address1 });
      if (verdict.accepted) matched.push({ business, score: verdict.score });
    }
    matched.sort((a, b) => b.score - a.score || (a.business.id < b.business.id ? -1 : 1));
    return {
      businesses: matched.slice(0, query.limit).map(({ business: b }) => ({
        id: b.id,
        alias: b.alias,
        name: b.name,
        coordinates: b.coordinates,
        location: b.location,
        phone: b.phone,
        display_phone: b.display_phone,
      })),
    };
  }

  /** `GET /v3/businesses/{id_or_alias}`: the public record with its hours (open now or not) and photos. */
  async details(idOrAlias: string) {
    const business = await new BusinessStore(this.db).findByIdOrAlias(idOrAlias);
    if (!business) throw apiError('BUSINESS_NOT_FOUND', `Business not found: ${idOrAlias}`);
    const openNow = isOpenAt(business, this.clock.now());
    return {
      ...publicFields(business),
      is_claimed: business.is_claimed,
      hours: business.hours.map((h) => ({ hours_type: h.hours_type, open: h.open, is_open_now: openNow })),
      photos: business.image_url ? [business.image_url] : [],
    };
  }
}
