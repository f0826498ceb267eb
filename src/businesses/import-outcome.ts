import { notSearchableBecause, type Business, type NotSearchableReason } from './business-record.js';

/** What a business import answers (docs/catalogue.md "Imports"). */
export interface ImportOutcome {
  imported: number;
  created: number;
  updated: number;
  /** Imported businesses search will not list, each reason counted (a business may have several). */
  not_searchable: { count: number } & Record<NotSearchableReason, number>;
  /** Present when some will not be listed: how many and why, in words for the operator. */
  notice?: string;
}

/** The reasons in the order the notice names them. */
const REASONS: readonly NotSearchableReason[] = ['no_reviews', 'closed', 'no_coordinates'];

const REASON_WORDS: Record<NotSearchableReason, (n: number) => string> = {
  no_reviews: (n) =>
    `${n} ${n === 1 ? 'has' : 'have'} no reviews (review_count 0: search lists only reviewed businesses, as the original does)`,
  closed: (n) => `${n} ${n === 1 ? 'is' : 'are'} closed for good (is_closed)`,
  no_coordinates: (n) => `${n} ${n === 1 ? 'has' : 'have'} no coordinates, so no place on the map`,
};

/**
 * Counts, as an import reads its records, those search will leave out and why: an import that
 * loads 20,000 businesses without reviews says so, rather than leaving the operator to wonder
 * why search still finds 30.
 */
export class NotSearchableTally {
  private count = 0;
  private readonly reasons: Record<NotSearchableReason, number> = { no_reviews: 0, closed: 0, no_coordinates: 0 };

  add(business: Business): void {
    const reasons = notSearchableBecause(business);
    if (reasons.length === 0) return;
    this.count++;
    for (const reason of reasons) this.reasons[reason]++;
  }

  outcome(imported: number): Pick<ImportOutcome, 'not_searchable' | 'notice'> {
    const not_searchable = { count: this.count, ...this.reasons };
    if (this.count === 0) return { not_searchable };
    const why = REASONS.filter((reason) => this.reasons[reason] > 0).map((reason) => REASON_WORDS[reason](this.reasons[reason]));
    return {
      not_searchable,
      notice:
        `${this.count} of the ${imported} imported businesses will not appear in search: ${why.join('; ')}. ` +
        'Calls by id (details, Business Match, bookings) still find them (docs/search.md).',
    };
  }
}
