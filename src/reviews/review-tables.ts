import { sql } from 'kysely';
import type { PbsMigration } from '../platform/db/migrate.js';

/** Business-user roles of a public response (spec "Private review"), in the underscore form the sample uses. */
export const RESPONSE_ROLES = ['OWNER', 'MANAGER', 'CUSTOMER_SERVICE', 'EMPLOYEE'] as const;
export type ResponseRole = (typeof RESPONSE_ROLES)[number];

/** A review of a business and the owner's public response, as the operator loads them. */
export interface ReviewsTable {
  id: string;
  business_id: string;
  rating: number;
  /** The locale the review was written in (its first text); webhooks name its language. */
  locale: string;
  user_id: string;
  user_name: string;
  user_image_url: string;
  time_created: number;
  response_text: string | null;
  response_time: number | null;
  response_user_name: string | null;
  response_role: ResponseRole | null;
  response_photo_url: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * A review's text in one language (a review has at most one text per language: `en_US` and
 * `en_GB` are both English). Business and time are copied here so that a business's reviews in a
 * language are read, counted and paged from one index.
 */
export interface ReviewTextsTable {
  review_id: string;
  business_id: string;
  language: string;
  locale: string;
  time_created: number;
  text: string;
}

declare module '../platform/db/database.js' {
  interface Tables {
    reviews: ReviewsTable;
    review_texts: ReviewTextsTable;
  }
}

export const reviewsMigration: PbsMigration = {
  name: '0700_reviews',
  async up(db) {
    await db.schema
      .createTable('reviews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('rating', 'integer', (c) => c.notNull())
      .addColumn('locale', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('user_name', 'text', (c) => c.notNull())
      .addColumn('user_image_url', 'text', (c) => c.notNull())
      .addColumn('time_created', 'bigint', (c) => c.notNull())
      .addColumn('response_text', 'text')
      .addColumn('response_time', 'bigint')
      .addColumn('response_user_name', 'text')
      .addColumn('response_role', 'text')
      .addColumn('response_photo_url', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('reviews_business').on('reviews').columns(['business_id', 'time_created']).execute();
    await db.schema
      .createTable('review_texts')
      .addColumn('review_id', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('locale', 'text', (c) => c.notNull())
      .addColumn('time_created', 'bigint', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('review_texts_pk', ['review_id', 'language'])
      .execute();
    // Newest first within a business and language; the id breaks ties.
    await sql`create index review_texts_page on review_texts (business_id, language, time_created desc, review_id desc)`.execute(db);
  },
};
