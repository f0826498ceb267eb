import { toIsoOffset } from '../platform/clock.js';
import { localDateTime, localIsoOffset } from '../platform/local-time.js';
import { REVIEW_TIME_ZONE, type ResponseDraft } from './review-input.js';
import type { Review, ReviewInLanguage, ReviewText } from './review-store.js';

/** How a review is shown: to partners (by locale, Pacific time) and to the operator (every text, UTC). */

/** "Jane Doe" → "Jane D." (spec: first name and first initial of the last name). */
export function displayName(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return parts[0] ?? '';
  return `${parts[0]} ${parts[parts.length - 1][0].toUpperCase()}.`;
}

export function responseColumns(response: ResponseDraft | null) {
  return {
    response_text: response?.text ?? null,
    response_time: response?.time ?? null,
    response_user_name: response?.userName ?? null,
    response_role: response?.role ?? null,
    response_photo_url: response?.photoUrl ?? null,
  };
}

export function publicResponse(r: Review, timeOf: (ms: number) => string) {
  if (r.response_text === null) return null;
  return {
    text: r.response_text,
    time_created: timeOf(Number(r.response_time)),
    business_user: { name: r.response_user_name ?? '', role: r.response_role ?? 'OWNER', photo_url: r.response_photo_url ?? '' },
  };
}

/** A review as partners read it (spec "Private review"; docs/contract/reviews-and-engagement.md §7.1). */
export function partnerView(r: ReviewInLanguage, businessUrl: string) {
  return {
    id: r.id,
    rating: r.rating,
    text: r.text,
    time_created: localDateTime(Number(r.time_created), REVIEW_TIME_ZONE),
    url: `${businessUrl}?hrid=${encodeURIComponent(r.id)}`,
    user: { id: r.user_id, name: displayName(r.user_name), image_url: r.user_image_url },
    public_response: publicResponse(r, (ms) => localIsoOffset(ms, REVIEW_TIME_ZONE)),
  };
}

/** A review as the operator loaded it: every text, full names, times in UTC. */
export function operatorView(r: Review, texts: ReviewText[]) {
  return {
    id: r.id,
    business_id: r.business_id,
    rating: r.rating,
    locale: r.locale,
    text: Object.fromEntries(texts.map((t) => [t.locale, t.text])),
    user: { id: r.user_id, name: r.user_name, image_url: r.user_image_url },
    time_created: toIsoOffset(Number(r.time_created)),
    public_response: publicResponse(r, toIsoOffset),
    created_at: toIsoOffset(Number(r.created_at)),
    updated_at: toIsoOffset(Number(r.updated_at)),
  };
}
