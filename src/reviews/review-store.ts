import type { Insertable, Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import type { ReviewsTable, ReviewTextsTable } from './review-tables.js';
import './review-tables.js';

export type Review = Selectable<ReviewsTable>;
export type ReviewText = Selectable<ReviewTextsTable>;
/** A review with its text in one language, as a partner page reads it. */
export type ReviewInLanguage = Review & { text: string };

/** SQL of reviews and their texts. */
export class ReviewStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  review(id: string) {
    return this.db.selectFrom('reviews').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The review, locked for the transaction on PostgreSQL (edits of one review take turns). */
  lockReview(id: string) {
    return forUpdateOn(this.db.selectFrom('reviews').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  async insert(review: Insertable<ReviewsTable>): Promise<void> {
    await this.db.insertInto('reviews').values(review).execute();
  }

  async update(id: string, change: Partial<Review>): Promise<void> {
    await this.db.updateTable('reviews').set(change).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('review_texts').where('review_id', '=', id).execute();
    await this.db.deleteFrom('reviews').where('id', '=', id).execute();
  }

  texts(reviewIds: string[]) {
    if (reviewIds.length === 0) return Promise.resolve<ReviewText[]>([]);
    return this.db
      .selectFrom('review_texts')
      .selectAll()
      .where('review_id', 'in', reviewIds)
      .orderBy('review_id')
      .orderBy('language')
      .execute();
  }

  /** Writes a review's texts: the languages given are replaced or added, the others kept. */
  async putTexts(
    review: { id: string; business_id: string; time_created: number },
    texts: Array<{ locale: string; language: string; text: string }>,
  ): Promise<void> {
    for (const t of texts) {
      await this.db
        .insertInto('review_texts')
        .values({
          review_id: review.id,
          business_id: review.business_id,
          language: t.language,
          locale: t.locale,
          time_created: review.time_created,
          text: t.text,
        })
        .onConflict((oc) => oc.columns(['review_id', 'language']).doUpdateSet({ locale: t.locale, text: t.text }))
        .execute();
    }
  }

  async clearTexts(reviewId: string): Promise<void> {
    await this.db.deleteFrom('review_texts').where('review_id', '=', reviewId).execute();
  }

  /** Keeps the copied ordering time of a review's texts equal to the review's. */
  async retimeTexts(reviewId: string, timeCreated: number): Promise<void> {
    await this.db.updateTable('review_texts').set({ time_created: timeCreated }).where('review_id', '=', reviewId).execute();
  }

  /** One page of a business's reviews written in `language`, newest first, with that text. */
  page(businessId: string, language: string, limit: number, offset: number): Promise<ReviewInLanguage[]> {
    return this.db
      .selectFrom('review_texts as t')
      .innerJoin('reviews as r', 'r.id', 't.review_id')
      .selectAll('r')
      .select('t.text')
      .where('t.business_id', '=', businessId)
      .where('t.language', '=', language)
      .orderBy('t.time_created', 'desc')
      .orderBy('t.review_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async countInLanguage(businessId: string, language: string): Promise<number> {
    const row = await this.db
      .selectFrom('review_texts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .where('language', '=', language)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The languages a business's reviews are written in. */
  async languages(businessId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('review_texts')
      .select('language')
      .distinct()
      .where('business_id', '=', businessId)
      .orderBy('language')
      .execute();
    return rows.map((r) => r.language);
  }

  /** Every review of a business, newest first (the operator's view). */
  async list(businessId: string, limit: number, offset: number): Promise<{ total: number; reviews: Review[] }> {
    const count = await this.db
      .selectFrom('reviews')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .executeTakeFirstOrThrow();
    const reviews = await this.db
      .selectFrom('reviews')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('time_created', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return { total: Number(count.n), reviews };
  }

  /** Of these ids, the reviews that exist. */
  async existing(ids: string[]): Promise<Map<string, Review>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('reviews').selectAll().where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r]));
  }
}
