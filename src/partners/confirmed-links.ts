import { BoundedMap } from '../platform/bounded-map.js';

/** Lists kept by their text (`businessIdsOfList`), and the longest text kept. */
const MAX_LISTS = 4096;
const MAX_LIST_TEXT = 2048;

/** A list of businesses kept by the text it was sent as: its distinct business ids, and how many ids or aliases the text named. */
export interface KeptList {
  businessIds: readonly string[];
  given: number;
}

/**
 * Partner ↔ business links confirmed recently, by partner, then id or alias (wall-clock expiry):
 * the link guard of every business route asks, so a hit saves two queries. Only confirmed links
 * are kept. PartnerService forgets them on any link or business change here, and when the change
 * feed tells of a link change in another process.
 */
export class ConfirmedLinks {
  private readonly byPartner = new Map<string, Map<string, { businessId: string; until: number }>>();
  private count = 0;
  /** One copy of each business id answered (see `confirm`). */
  private readonly sharedBusinessIds = new Map<string, string>();
  /**
   * Comma lists of ids or aliases as partners sent them (engagement's `business_ids`), by their
   * text: whose list, its distinct business ids, and until when every link in it holds. A partner
   * that polls the same businesses sends the same lists again; one lookup of the text then
   * stands for parsing it and a lookup per id (docs/engagement.md "How reads stay fast").
   */
  private readonly lists = new BoundedMap<string, KeptList & { partnerId: string; until: number }>(MAX_LISTS);
  /** Moves on every `forget`: a check begun before it must not keep its answer. */
  generation = 0;

  constructor(private readonly maxKept = 50_000) {}

  /** The business id `idOrAlias` names, when the partner's link to it was confirmed and has not expired. */
  businessIdOf(partnerId: string, idOrAlias: string, now: number): string | undefined {
    const hit = this.byPartner.get(partnerId)?.get(idOrAlias);
    return hit && hit.until > now ? hit.businessId : undefined;
  }

  /**
   * The business ids of all of `idsOrAliases`, in order, when every one is confirmed; one lookup
   * per id (engagement's 20 on every request).
   */
  businessIdsOf(partnerId: string, idsOrAliases: readonly string[], now: number, listText?: string): string[] | undefined {
    const confirmed = this.byPartner.get(partnerId);
    if (!confirmed) return undefined;
    const ids = new Array<string>(idsOrAliases.length);
    let until = Infinity;
    for (let i = 0; i < idsOrAliases.length; i++) {
      const hit = confirmed.get(idsOrAliases[i]);
      if (!hit || hit.until <= now) return undefined;
      ids[i] = hit.businessId;
      until = Math.min(until, hit.until);
    }
    if (listText !== undefined && listText.length <= MAX_LIST_TEXT)
      this.lists.set(ownCopy(listText), { partnerId, businessIds: Object.freeze([...new Set(ids)]), given: ids.length, until });
    return ids;
  }

  /** The distinct business ids of a list the partner sent as `listText` before, while all its links hold. */
  businessIdsOfList(partnerId: string, listText: string, now: number): KeptList | undefined {
    const hit = this.lists.get(listText);
    return hit && hit.partnerId === partnerId && hit.until > now ? hit : undefined;
  }

  /** Keeps a confirmed link until `until`; answers the kept copy of the business id. */
  confirm(partnerId: string, idOrAlias: string, businessId: string, until: number): string {
    if (this.count >= this.maxKept) {
      this.byPartner.clear();
      this.lists.clear();
      this.sharedBusinessIds.clear();
      this.count = 0;
    }
    let links = this.byPartner.get(partnerId);
    if (!links) this.byPartner.set(partnerId, (links = new Map()));
    if (!links.has(idOrAlias)) this.count++;
    // Copies of their own: the given id may be a slice of a whole query string (kept alive by it,
    // and slower to compare), and one copy per business id lets the caches keyed by it downstream
    // (engagement's parts) compare by reference.
    let shared = this.sharedBusinessIds.get(businessId);
    if (shared === undefined) this.sharedBusinessIds.set(businessId, (shared = ownCopy(businessId)));
    links.set(ownCopy(idOrAlias), { businessId: shared, until });
    return shared;
  }

  forget(): void {
    this.byPartner.clear();
    this.lists.clear();
    this.count = 0;
    this.generation++;
  }
}

/** A flat string of its own with the same text (not a slice of a longer one). */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
