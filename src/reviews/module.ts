import type { BusinessDirectory } from '../businesses/business-service.js';
import { reviewCommand } from '../commands/review.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { reviewAdminRoutes } from './admin-routes.js';
import { ReviewService, type ReviewServiceOptions } from './review-service.js';
import { reviewsMigration } from './review-tables.js';
import { reviewRoutes } from './routes.js';

/** The reviews family's service (one use case: the reviews of a business, written and read). */
export function reviewServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  changes: ChangeFeed,
  options: ReviewServiceOptions,
): ReviewService {
  return new ReviewService(database, clock, businesses, changes, options);
}

/**
 * Private reviews (spec part 4; docs/contract/reviews-and-engagement.md §7.1; docs/reviews.md): the partner read and the
 * operator's reviews and public responses. Request checks stay in the service (typed schemas are
 * for the document), so bad values get the original's VALIDATION_ERROR wording.
 */
export function reviewsModule(service: ReviewService): ApiModule {
  return {
    name: 'reviews',
    tags: [
      {
        name: 'private reviews',
        description:
          "A linked business's reviews in full, by locale, with the owner's public response (Bearer API key or OAuth access token)",
      },
    ],
    commands: { review: (args, flags) => reviewCommand(service, args, flags) },
    migrations: [reviewsMigration],
    routes: async (fastify) => {
      await fastify.register(reviewRoutes(service));
      await fastify.register(reviewAdminRoutes(service));
    },
  };
}
