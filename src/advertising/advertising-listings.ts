import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Principal } from '../platform/auth/principal.js';
import type { Clock } from '../platform/clock.js';
import { apiError } from '../platform/errors.js';
import { programStatus, programView } from './advertising-rules.js';
import type { AdvertisingStore } from './advertising-store.js';

/**
 * The partner's program listings (docs/contract/advertising.md §8.7): by business, by id, and the whole account. Each
 * program shows its recorded figures and its features (programView).
 */
export class ProgramListings {
  constructor(
    private readonly store: () => AdvertisingStore,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
  ) {}

  /**
   * `GET /v1/programs/list/{business_ids}`: the caller's programs per business (the route has
   * checked every id is linked), `start`/`limit` paging each business's list.
   */
  async byBusiness(principal: Principal, idsOrAliases: string[], page: { start: number; limit: number }) {
    const resolved = await this.businesses.resolveIds(idsOrAliases);
    const ids = [...new Set(idsOrAliases.map((id) => resolved.get(id)!))];
    const store = this.store();
    const programs = await store.partnerProgramsOf(principal.partnerId, ids);
    const totals = await store.totals(programs.map((p) => p.id));
    const features = await store.featureTypesOf(programs.map((p) => p.id));
    const now = this.clock.now();
    return {
      businesses: ids.map((id) => {
        const own = programs.filter((p) => p.business_id === id);
        const running = own.some((p) => programStatus(p, now) === 'ACTIVE');
        return {
          yelp_business_id: id,
          destination_yelp_business_id: null,
          advertiser_status: running ? 'CURRENT_ADVERTISER' : own.length > 0 ? 'PAST_ADVERTISER' : 'NON_ADVERTISER',
          partner_business_id: null,
          total: own.length,
          programs: own.slice(page.start, page.start + page.limit).map((p) => programView(p, totals.get(p.id), now, features.get(p.id))),
        };
      }),
    };
  }

  /** `GET /v1/programs/info/{program_ids}`: the caller's programs by id; any id unknown or not the caller's → 404. */
  async byId(principal: Principal, ids: string[], start: number) {
    const unique = [...new Set(ids)];
    const store = this.store();
    const programs = await store.partnerPrograms(principal.partnerId, unique);
    const found = new Map(programs.map((p) => [p.id, p]));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) throw apiError('NOT_FOUND', `Not Found: no such program ${missing.slice(0, 5).join(', ')}`);
    const totals = await store.totals(unique);
    const features = await store.featureTypesOf(unique);
    const now = this.clock.now();
    return { programs: unique.slice(start).map((id) => programView(found.get(id)!, totals.get(id), now, features.get(id))) };
  }

  /**
   * `GET /programs/v1`: every program of the caller's account, filtered by status (docs/contract/advertising.md §8.7):
   * CURRENT (running now), FUTURE (starts later), PAST (ended), PAUSED, ALL.
   */
  async ofAccount(principal: Principal, query: { program_status: string; offset: number; limit: number }) {
    const now = this.clock.now();
    const store = this.store();
    const all = await store.allPartnerPrograms(principal.partnerId);
    const matches = all.filter((p) => {
      const active = programStatus(p, now) === 'ACTIVE';
      switch (query.program_status) {
        case 'PAST':
          return !active;
        case 'PAUSED':
          return active && p.pause_status === 'PAUSED';
        case 'FUTURE':
          return active && p.start_at > now;
        case 'CURRENT':
          return active && p.start_at <= now;
        default:
          return true;
      }
    });
    const page = matches.slice(query.offset, query.offset + query.limit);
    const totals = await store.totals(page.map((p) => p.id));
    const features = await store.featureTypesOf(page.map((p) => p.id));
    return {
      program_status: query.program_status,
      total: matches.length,
      limit: query.limit,
      offset: query.offset,
      payment_programs: page.map((p) => ({
        ...programView(p, totals.get(p.id), now, features.get(p.id)),
        businesses: [{ yelp_business_id: p.business_id, partner_business_id: null }],
      })),
    };
  }
}
