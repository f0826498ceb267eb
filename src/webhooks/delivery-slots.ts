/**
 * A partner's standing with this process's deliverer: `proven` once its endpoint answered 2xx,
 * `failing` once an attempt failed (no answer in time, a refused connection, an error status),
 * `new` before any attempt. A success proves it again.
 */
export type EndpointStanding = 'new' | 'proven' | 'failing';

/** Partners whose standing is kept at once (past it the oldest is forgotten: it is `new` again). */
const STANDINGS_KEPT = 10_000;

/**
 * The deliverer's slots (attempts under way) and how they are shared between partners, so that
 * no partner's endpoint, however slow or dead, delays another's (docs/contract/webhooks.md and
 * ADR 0006):
 * - a `proven` partner may have `provenCap` under way (a few per connection of its pool);
 * - a `new` or `failing` partner one at a time: a dead endpoint holds one slot for the whole
 *   timeout, never a pool's worth, and a new one is tried once before it gets more;
 * - `failing` partners together at most `failingBudget`: however many endpoints are dead, the
 *   rest of the slots stay with the others.
 */
export class DeliverySlots {
  private readonly underWay = new Map<string, number>();
  private readonly standings = new Map<string, EndpointStanding>();
  /** Attempts under way, in all and of failing partners. */
  total = 0;
  private failing = 0;

  constructor(private readonly options: { maxInFlight: number; provenCap: number; failingBudget: number }) {}

  standingOf(partnerId: string): EndpointStanding {
    return this.standings.get(partnerId) ?? 'new';
  }

  /** How many attempts `partnerId` may have under way. */
  capOf(partnerId: string): number {
    return this.standingOf(partnerId) === 'proven' ? this.options.provenCap : 1;
  }

  underWayOf(partnerId: string): number {
    return this.underWay.get(partnerId) ?? 0;
  }

  /** Whether a partner with attempts under way may take more (a claim would find it work). */
  busyWithRoom(): boolean {
    for (const [partnerId, n] of this.underWay)
      if (n > 0 && this.standingOf(partnerId) === 'proven' && n <= this.options.provenCap / 2) return true;
    return false;
  }

  /** Free slots. */
  get room(): number {
    return this.options.maxInFlight - this.total;
  }

  /**
   * Partners a claim leaves out now: those at their cap (proven ones above half of it: claims
   * come in batches, not one per finished attempt), and every failing partner once failing ones
   * fill their budget.
   */
  excluded(): string[] {
    const out: string[] = [];
    const failingFull = this.failing >= this.options.failingBudget;
    for (const [partnerId, n] of this.underWay) {
      if (n === 0) continue;
      const proven = this.standingOf(partnerId) === 'proven';
      if (proven ? n > this.options.provenCap / 2 : n >= 1) out.push(partnerId);
    }
    if (failingFull)
      for (const [partnerId, standing] of this.standings)
        if (standing === 'failing' && this.underWayOf(partnerId) === 0) out.push(partnerId);
    return out;
  }

  /**
   * How many deliveries one claim may take: what is free, and no more than keeps every proven
   * partner within its cap whatever the claim returns. (New and failing partners' extra rows are
   * handed back by `admit`.)
   */
  claimLimit(wanted: number): number {
    let fullest = 0;
    for (const [partnerId, n] of this.underWay)
      if (this.standingOf(partnerId) === 'proven' && n <= this.options.provenCap / 2) fullest = Math.max(fullest, n);
    return Math.max(0, Math.min(wanted, this.room, this.options.provenCap - fullest));
  }

  /**
   * Takes slots for the claimed deliveries it admits (each partner within its cap, failing ones
   * within their budget) and answers those it does not, to be handed back unsent.
   */
  admit<D extends { partner_id: string }>(claimed: D[]): { admitted: D[]; handedBack: D[] } {
    const admitted: D[] = [];
    const handedBack: D[] = [];
    for (const d of claimed) {
      const failing = this.standingOf(d.partner_id) === 'failing';
      const fits =
        this.underWayOf(d.partner_id) < this.capOf(d.partner_id) &&
        this.total < this.options.maxInFlight &&
        (!failing || this.failing < this.options.failingBudget);
      if (!fits) {
        handedBack.push(d);
        continue;
      }
      this.change(d.partner_id, +1);
      admitted.push(d);
    }
    return { admitted, handedBack };
  }

  /** An attempt's slot is free (its answer came, or it was never sent). */
  release(partnerId: string): void {
    this.change(partnerId, -1);
  }

  /** What an attempt to the partner's endpoint came to: its standing for the next ones. */
  noteOutcome(partnerId: string, delivered: boolean): void {
    const before = this.standingOf(partnerId);
    const after: EndpointStanding = delivered ? 'proven' : 'failing';
    if (before === after) return;
    // Its attempts still under way move to the budget of their partner's new standing.
    const n = this.underWayOf(partnerId);
    if (before === 'failing') this.failing -= n;
    if (after === 'failing') this.failing += n;
    this.standings.delete(partnerId);
    if (this.standings.size >= STANDINGS_KEPT) this.forgetOldest();
    this.standings.set(partnerId, after);
  }

  private change(partnerId: string, by: 1 | -1): void {
    const n = this.underWayOf(partnerId) + by;
    if (n === 0) this.underWay.delete(partnerId);
    else this.underWay.set(partnerId, n);
    this.total += by;
    if (this.standingOf(partnerId) === 'failing') this.failing += by;
  }

  private forgetOldest(): void {
    for (const [partnerId] of this.standings) {
      if (this.underWayOf(partnerId) > 0) continue;
      this.standings.delete(partnerId);
      return;
    }
  }
}
