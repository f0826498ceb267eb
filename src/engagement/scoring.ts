/**
 * The weekly scores (docs/engagement.md): each business's weighted activity ranked against every
 * North American business of the same week. Pure and deterministic, so it can be checked apart
 * from storage and re-run with the same answer.
 */

/** The raw weekly activity the operator loads per business. */
export const ACTIVITY_FIELDS = [
  'page_views',
  'website_clicks',
  'bookmarks',
  'calls_and_messages',
  'direction_clicks',
  'reviews_and_photos',
  'check_ins',
  'transactions',
] as const;
export type ActivityField = (typeof ACTIVITY_FIELDS)[number];
export type Activity = Record<ActivityField, number>;

/**
 * What one action is worth, roughly by how much it says about a visit or a purchase: a page view
 * is the cheapest signal, a call, a message or a transaction the strongest.
 */
export const WEIGHTS: Readonly<Activity> = {
  page_views: 1,
  website_clicks: 4,
  bookmarks: 4,
  calls_and_messages: 10,
  direction_clicks: 6,
  reviews_and_photos: 8,
  check_ins: 6,
  transactions: 12,
};

/** The countries whose businesses make up the population (spec: "North America-based"). */
export const NORTH_AMERICA = ['US', 'CA', 'MX'] as const;

/** Levels of each metric (spec "Engagement metrics"; docs/contract/reviews-and-engagement.md §7.2 for transaction_metric). */
export const LEVELS = { engagement: 20, intent: 10, transaction: 4 } as const;

export interface Scores {
  engagement_metric: number;
  intent_metric: number;
  transaction_metric: number;
}

/** engagement: every input; intent: every input but page views; transaction: transactions. */
export function rawScores(a: Activity): { engagement: number; intent: number; transaction: number } {
  let intent = 0;
  for (const field of ACTIVITY_FIELDS) if (field !== 'page_views') intent += WEIGHTS[field] * a[field];
  return { engagement: intent + WEIGHTS.page_views * a.page_views, intent, transaction: a.transactions };
}

/** How many of the ascending `sorted` values are strictly below `value`. */
function countBelow(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The level 1…`levels` of each value: 1 + ⌊levels × (share of the population strictly below it)⌋.
 * Equal values share a level; the least active are 1; a higher value never gets a lower level.
 */
export function levelsOf(values: Float64Array, levels: number): Uint8Array {
  const sorted = Float64Array.from(values).sort();
  const out = new Uint8Array(values.length);
  const n = values.length;
  for (let i = 0; i < n; i++) out[i] = 1 + Math.floor((levels * countBelow(sorted, values[i])) / n);
  return out;
}

/** Scores of one week's population (every business given is in it, in the order given). */
export function scoreWeek(activities: readonly Activity[]): Scores[] {
  const n = activities.length;
  const engagement = new Float64Array(n);
  const intent = new Float64Array(n);
  const transaction = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const raw = rawScores(activities[i]);
    engagement[i] = raw.engagement;
    intent[i] = raw.intent;
    transaction[i] = raw.transaction;
  }
  const e = levelsOf(engagement, LEVELS.engagement);
  const t = levelsOf(intent, LEVELS.intent);
  const x = levelsOf(transaction, LEVELS.transaction);
  const scores: Scores[] = new Array(n);
  for (let i = 0; i < n; i++) scores[i] = { engagement_metric: e[i], intent_metric: t[i], transaction_metric: x[i] };
  return scores;
}
