import type { BusinessDirectory } from '../businesses/business-service.js';
import { groupedBy } from '../platform/values.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { newId, sha256Hex } from '../platform/ids.js';
import { jsonLines } from '../platform/json-lines.js';
import { parsePage, type Page } from '../platform/paging.js';
import { single } from '../platform/query.js';
import { ReadCache } from '../platform/read-cache.js';
import { languageOf, requestLocale } from './locales.js';
import {
  importLineDraft,
  newReviewDraft,
  publicResponseDraft,
  reviewEditDraft,
  type ResponseDraft,
  type ReviewDraft,
} from './review-input.js';
import { ReviewStore, type Review, type ReviewText } from './review-store.js';
import { operatorView, partnerView, responseColumns } from './review-views.js';

/** Lines one import takes through the operator API (the CLI sends any number, in batches). */
export const MAX_IMPORT_LINES = 20_000;
/** Reviews written per transaction of an import, and per progress report. */
const IMPORT_BATCH = 500;
/** Partner pages: default and largest `limit` (the public reviews endpoint's 20 and 50). */
export const REVIEW_PAGE = { defaultLimit: 20, minLimit: 1, maxLimit: 50 } as const;
const REVIEWS_TOPIC = 'reviews';

export interface ReviewServiceOptions {
  /** Where review addresses point (`{publicUrl}/biz/{alias}?hrid={id}`). */
  publicUrl: string;
  /** Answer the list as `reviews.review` unless a request says `nested=false`. */
  nestedByDefault: boolean;
  onEventsCommitted?: () => void;
}

/**
 * Private reviews (spec part 4; docs/contract/reviews-and-engagement.md §7.1): the operator loads a business's reviews and its
 * owner's public responses; partners with a contract read them in a language; new, edited and
 * removed reviews are events for the partners subscribed to the business (docs/contract/webhooks.md §6.3).
 */
export class ReviewService {
  /** Partner pages (JSON bytes) by business, kept until a review of that business changes (or 30 s). */
  private readonly pages: ReadCache<Buffer>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
    private readonly changes: ChangeFeed,
    private readonly options: ReviewServiceOptions,
  ) {
    this.pages = new ReadCache(changes, REVIEWS_TOPIC, { ttlMs: 30_000, maxEntries: 20_000 });
  }

  store(db: DbOrTx = this.database.db) {
    return new ReviewStore(db, this.database.dialect);
  }

  // ---- partner read ------------------------------------------------------------------------

  /**
   * `GET /v3/private/businesses/{business_id}/reviews`: the business's reviews written in the
   * request's language (as the public reviews endpoint, a review shows in the languages it was
   * written or translated in), newest first, paged, with the total. Answers the JSON bytes: pages
   * are kept serialized, so a hot page costs a lookup (and no promise).
   */
  partnerPage(
    businessId: string,
    query: Record<string, unknown>,
    acceptLanguage: string | undefined,
  ): { locale: string; json: Buffer | Promise<Buffer> } {
    const locale = requestLocale(single(query.locale), acceptLanguage);
    const page = parsePage(query, REVIEW_PAGE);
    const nested = nestedFlag(query.nested, this.options.nestedByDefault);
    const language = languageOf(locale);
    const json = this.pages.read(businessId, `${language}|${page.limit}|${page.offset}|${nested}`, async () =>
      Buffer.from(JSON.stringify(await this.loadPage(businessId, language, page, nested))),
    );
    return { locale, json };
  }

  private async loadPage(businessId: string, language: string, page: Page, nested: boolean) {
    const store = this.store();
    const business = await this.businesses.requireRef(businessId);
    const [rows, total, languages] = await Promise.all([
      store.page(business.id, language, page.limit, page.offset),
      store.countInLanguage(business.id, language),
      store.languages(business.id),
    ]);
    const base = `${this.options.publicUrl}/biz/${encodeURIComponent(business.alias)}`;
    const reviews = rows.map((r) => partnerView(r, base));
    return { reviews: nested ? { review: reviews } : reviews, total, possible_languages: languages };
  }

  // ---- operator ----------------------------------------------------------------------------

  async add(businessIdOrAlias: string, input: unknown) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const draft = newReviewDraft(input, this.clock.now());
    const review = await this.database
      .transact(async (trx) => {
        const saved = await this.insert(trx, business.id, draft, true);
        await this.changes.publish(trx, REVIEWS_TOPIC, business.id);
        return saved;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) throw apiError('CONFLICT', `A review with id ${draft.id} exists`);
        throw error;
      });
    this.committed(business.id);
    return this.operatorView(review);
  }

  async get(reviewId: string) {
    const review = await this.store().review(reviewId);
    if (!review) throw reviewNotFound(reviewId);
    return this.operatorView(review);
  }

  async list(businessIdOrAlias: string, query: Record<string, unknown>) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const page = parsePage(query, { defaultLimit: 50, minLimit: 1, maxLimit: 500 });
    const { total, reviews } = await this.store().list(business.id, page.limit, page.offset);
    const texts = groupedBy(await this.store().texts(reviews.map((r) => r.id)), (t) => t.review_id);
    return { total, limit: page.limit, offset: page.offset, reviews: reviews.map((r) => operatorView(r, texts.get(r.id) ?? [])) };
  }

  /** Edits rating, texts, author or time: a REVIEW_EDITED_EVENT for the subscribed partners. */
  async edit(reviewId: string, input: unknown) {
    const draft = reviewEditDraft(input, this.clock.now());
    const review = await this.database.transact(async (trx) => {
      const current = await this.store(trx).lockReview(reviewId);
      if (!current) throw reviewNotFound(reviewId);
      const updated = await this.apply(trx, current, draft, true);
      await this.changes.publish(trx, REVIEWS_TOPIC, current.business_id);
      return updated;
    });
    this.committed(review.business_id);
    return this.operatorView(review);
  }

  /** Removes a review: a REVIEW_REMOVED_EVENT for the subscribed partners. */
  async remove(reviewId: string): Promise<void> {
    const businessId = await this.database.transact(async (trx) => {
      const current = await this.store(trx).lockReview(reviewId);
      if (!current) throw reviewNotFound(reviewId);
      await this.store(trx).remove(reviewId);
      await this.event(trx, current.business_id, { event_type: 'REVIEW_REMOVED_EVENT', review_id: current.id, user_id: current.user_id });
      await this.changes.publish(trx, REVIEWS_TOPIC, current.business_id);
      return current.business_id;
    });
    this.committed(businessId);
  }

  /** Sets (or replaces) the owner's public response. Owner replies send no webhook (docs/contract/webhooks.md §6.3). */
  async respond(reviewId: string, input: unknown) {
    const response = publicResponseDraft(input, this.clock.now());
    return this.changeResponse(reviewId, response);
  }

  async removeResponse(reviewId: string) {
    return this.changeResponse(reviewId, null);
  }

  private async changeResponse(reviewId: string, response: ResponseDraft | null) {
    const review = await this.database.transact(async (trx) => {
      const current = await this.store(trx).lockReview(reviewId);
      if (!current) throw reviewNotFound(reviewId);
      const change = { ...responseColumns(response), updated_at: this.clock.now() };
      await this.store(trx).update(reviewId, change);
      await this.changes.publish(trx, REVIEWS_TOPIC, current.business_id);
      return { ...current, ...change };
    });
    this.committed(review.business_id);
    return this.operatorView(review);
  }

  /**
   * Imports reviews as JSON lines `{"business_id", …review}`; a line whose `id` exists replaces
   * that review. Every line is checked first (nothing is stored when one is wrong); then batches
   * are stored, each in its transaction with its events, and reported to `onProgress`.
   * `notify: false` loads history without telling partners.
   */
  async importJsonLines(
    text: string,
    options: { maxLines?: number; notify?: boolean; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ imported: number; created: number; updated: number }> {
    const maxLines = options.maxLines ?? MAX_IMPORT_LINES;
    const now = this.clock.now();
    const lines: Array<{ businessId: string; draft: ReviewDraft }> = [];
    const ids = new Set<string>();
    for (const { value, where } of jsonLines(text, maxLines)) {
      const parsed = importLineDraft(value, now, where);
      // Without an id a line names a new review; its id is fixed now so a retried import repeats it.
      parsed.draft.id ??= `r${sha256Hex(JSON.stringify(value)).slice(0, 21)}`;
      if (ids.has(parsed.draft.id))
        throw apiError('VALIDATION_ERROR', `${where}: review ${parsed.draft.id} appears twice`, { field: 'id' });
      ids.add(parsed.draft.id);
      lines.push(parsed);
    }
    if (lines.length === 0) throw apiError('VALIDATION_ERROR', 'The import holds no reviews.');
    const named = [...new Set(lines.map((l) => l.businessId))];
    const resolved = await this.businesses.resolveIds(named);
    const missing = named.find((id) => !resolved.has(id));
    if (missing) throw apiError('VALIDATION_ERROR', `No such business ${missing}; nothing was imported.`, { field: 'business_id' });
    let created = 0;
    for (let i = 0; i < lines.length; i += IMPORT_BATCH) {
      const batch = lines.slice(i, i + IMPORT_BATCH);
      const touched = new Set<string>();
      await this.database.transact(async (trx) => {
        const existing = await this.store(trx).existing(batch.map((l) => l.draft.id!));
        for (const { businessId, draft } of batch) {
          const business = resolved.get(businessId)!;
          const current = existing.get(draft.id!);
          if (current && current.business_id !== business) {
            throw apiError(
              'CONFLICT',
              `Review ${draft.id} belongs to business ${current.business_id}; lines before this batch were imported.`,
            );
          }
          if (current) await this.replace(trx, current, draft, options.notify ?? true);
          else {
            await this.insert(trx, business, draft, options.notify ?? true);
            created++;
          }
          touched.add(business);
        }
        for (const business of touched) await this.changes.publish(trx, REVIEWS_TOPIC, business);
      });
      for (const business of touched) this.pages.forget(business);
      this.options.onEventsCommitted?.();
      options.onProgress?.(i + batch.length, lines.length);
    }
    return { imported: lines.length, created, updated: lines.length - created };
  }

  // ---- writing -----------------------------------------------------------------------------

  private async insert(trx: DbOrTx, businessId: string, draft: ReviewDraft, notify: boolean): Promise<Review> {
    const now = this.clock.now();
    const texts = draft.texts!;
    const review: Review = {
      id: draft.id ?? newId(),
      business_id: businessId,
      rating: draft.rating!,
      locale: texts[0].locale,
      user_id: draft.user!.id ?? `u${sha256Hex(draft.user!.name).slice(0, 21)}`,
      user_name: draft.user!.name,
      user_image_url: draft.user!.image_url,
      time_created: draft.time ?? now,
      ...responseColumns(draft.publicResponse ?? null),
      created_at: now,
      updated_at: now,
    };
    await this.store(trx).insert(review);
    await this.store(trx).putTexts(review, texts);
    if (notify) {
      await this.event(trx, businessId, {
        event_type: 'NEW_REVIEW_EVENT',
        review_id: review.id,
        rating: review.rating,
        language: languageOf(review.locale),
        user_id: review.user_id,
      });
    }
    return review;
  }

  /** An import line for an existing review: its fields and texts are replaced. */
  private async replace(trx: DbOrTx, current: Review, draft: ReviewDraft, notify: boolean): Promise<Review> {
    const store = this.store(trx);
    const before = await store.texts([current.id]);
    await store.clearTexts(current.id);
    const updated = await this.apply(trx, current, { ...draft, publicResponse: draft.publicResponse ?? null }, false);
    const after = await store.texts([current.id]);
    const contentChanged =
      updated.rating !== current.rating ||
      JSON.stringify(before.map(textKey)) !== JSON.stringify(after.map(textKey)) ||
      updated.time_created !== current.time_created;
    if (notify && contentChanged)
      await this.event(trx, current.business_id, { event_type: 'REVIEW_EDITED_EVENT', review_id: current.id, user_id: current.user_id });
    return updated;
  }

  private async apply(trx: DbOrTx, current: Review, draft: ReviewDraft, notify: boolean): Promise<Review> {
    const store = this.store(trx);
    const change: Partial<Review> = { updated_at: this.clock.now() };
    if (draft.rating !== undefined) change.rating = draft.rating;
    if (draft.user) {
      change.user_name = draft.user.name;
      change.user_image_url = draft.user.image_url;
      if (draft.user.id) change.user_id = draft.user.id;
    }
    if (draft.time !== undefined) change.time_created = draft.time;
    if (draft.publicResponse !== undefined) Object.assign(change, responseColumns(draft.publicResponse));
    const updated = { ...current, ...change };
    if (draft.texts) {
      await store.putTexts(updated, draft.texts);
      if (!(await store.texts([current.id])).some((t) => t.locale === updated.locale))
        change.locale = updated.locale = draft.texts[0].locale;
    }
    await store.update(current.id, change);
    if (change.time_created !== undefined) await store.retimeTexts(current.id, change.time_created);
    if (notify)
      await this.event(trx, current.business_id, { event_type: 'REVIEW_EDITED_EVENT', review_id: current.id, user_id: updated.user_id });
    return updated;
  }

  private event(trx: DbOrTx, businessId: string, payload: { event_type: string; [field: string]: unknown }) {
    return recordEvent(trx, this.database.dialect, {
      type: payload.event_type,
      businessId,
      partnerId: null,
      payload,
      at: this.clock.now(),
    });
  }

  private committed(businessId: string) {
    this.pages.forget(businessId);
    this.options.onEventsCommitted?.();
  }

  private async operatorView(review: Review) {
    return operatorView(review, await this.store().texts([review.id]));
  }
}

function nestedFlag(value: unknown, fallback: boolean): boolean {
  const v = single(value);
  if (v === undefined || v === '') return fallback;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw apiError('VALIDATION_ERROR', 'nested must be true or false', { field: 'nested' });
}

const reviewNotFound = (id: string) => apiError('NOT_FOUND', `No review ${id}`);
const textKey = (t: ReviewText) => `${t.language}|${t.locale}|${t.text}`;
