import type { BusinessDirectory } from '../businesses/business-service.js';
import type { Principal } from '../platform/auth/principal.js';
import type { Clock } from '../platform/clock.js';
import { apiError } from '../platform/errors.js';
import { programPhase, programView } from './advertising-rules.js';
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
   * Whether a business is currently advertising: it has an active program, bought by any
   * partner (the Leads API serves only such businesses, docs/contract/leads.md).
   */
  advertisingNow(businessId: string): Promise<boolean> {
    return this.store().advertising(businessId);
  }

  /**
   * `GET /v1/programs/list/{business_ids}`: the caller's programs per business (the route has
   * checked every id is linked), `start`/`limit` paging each business's list.
   */
  async byBusiness(principal: Principal, idsOrAliases: string[], page: { start: number; limit: number }) {
    const ids = await this.idsOf(idsOrAliases);
    const store = this.store();
    const programs = await store.partnerProgramsOf(principal.partnerId, ids);
    const records = await this.businesses.records(ids);
    const totals = await store.totals(programs.map((p) => p.id));
    const features = await store.featureTypesOf(programs.map((p) => p.id));
    const now = this.clock.now();
    return {
      businesses: ids.map((id) => {
        const own = programs.filter((p) => p.business_id === id);
        // A business with a program running or booked to start advertises; one whose programs all ended did.
        const signedUp = own.some((p) => programPhase(p, now) !== 'PAST');
        return {
          yelp_business_id: id,
          destination_yelp_business_id: records.get(id)?.migrated_to ?? null,
          advertiser_status: signedUp ? 'CURRENT_ADVERTISER' : own.length > 0 ? 'PAST_ADVERTISER' : 'NON_ADVERTISER',
          partner_business_id: null,
          total: own.length,
          programs: own.slice(page.start, page.start + page.limit).map((p) => programView(p, totals.get(p.id), now, features.get(p.id))),
        };
      }),
    };
  }

  /**
   * `GET /v1/business_migration_info/{business_ids}`: whether each business was moved or merged
   * into another, and which (the route has checked every id is linked).
   */
  async migrationInfo(idsOrAliases: string[]) {
    const ids = await this.idsOf(idsOrAliases);
    const records = await this.businesses.records(ids);
    return {
      businesses: ids.map((id) => {
        const destination = records.get(id)?.migrated_to ?? null;
        return { yelp_business_id: id, destination_yelp_business_id: destination, is_migrated: destination !== null };
      }),
    };
  }

  /** The business ids of ids or aliases, each once (the route has checked that every one is a linked business). */
  private async idsOf(idsOrAliases: string[]): Promise<string[]> {
    const resolved = await this.businesses.resolveIds(idsOrAliases);
    return [...new Set(idsOrAliases.map((id) => resolved.get(id)).filter((id) => id !== undefined))];
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
      const phase = programPhase(p, now);
      switch (query.program_status) {
        case 'PAUSED':
          return phase !== 'PAST' && p.pause_status === 'PAUSED';
        case 'ALL':
          return true;
        default:
          return phase === query.program_status;
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
