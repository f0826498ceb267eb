import type { BusinessDirectory } from '../businesses/business-service.js';
import { waitlistCommand } from '../commands/waitlist.js';
import type { PartnerService } from '../partners/partner-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import { waitlistAdminRoutes } from './admin-routes.js';
import { waitlistRoutes } from './routes.js';
import { WaitlistLines, type WaitlistOptions } from './waitlist-lines.js';
import { WaitlistPace } from './waitlist-pace.js';
import { WaitlistPartnerSide } from './waitlist-partner.js';
import { WaitlistRestaurantSide } from './waitlist-restaurant.js';
import { waitlistMigration } from './waitlist-tables.js';

/** The waitlist family's services, one per side (docs/waitlist.md). */
export interface WaitlistServices {
  lines: WaitlistLines;
  partner: WaitlistPartnerSide;
  restaurant: WaitlistRestaurantSide;
  pace: WaitlistPace;
}

export function waitlistServices(
  database: Database,
  clock: Clock,
  businesses: BusinessDirectory,
  changes: ChangeFeed,
  options: WaitlistOptions,
): WaitlistServices {
  const lines = new WaitlistLines(database, clock, businesses, changes, options);
  return { lines, partner: new WaitlistPartnerSide(lines), restaurant: new WaitlistRestaurantSide(lines), pace: new WaitlistPace(lines) };
}

/**
 * Waitlist (spec part 3; docs/contract/waitlist.md §4): the partner routes (routes.ts), the
 * restaurant side for the operator (admin-routes.ts), the `pbs waitlist` commands and the pace
 * that moves lines on the pbs clock.
 */
export function waitlistModule(partners: PartnerService, { partner: service, restaurant, pace }: WaitlistServices): ApiModule {
  return {
    name: 'waitlist',
    tags: [
      { name: 'waitlist', description: "Waitlist partner API (Bearer API key): a restaurant's line, estimates, joins, on-my-way visits" },
    ],
    commands: { waitlist: (args, flags) => waitlistCommand(restaurant, args, flags) },
    migrations: [waitlistMigration],
    registerTasks: (tasks) => {
      tasks.schedule({ name: 'waitlist.advance', everyMs: 60_000, run: () => pace.runSchedule() });
    },
    routes: async (fastify) => {
      await fastify.register(waitlistRoutes(partners, service));
      await fastify.register(waitlistAdminRoutes(restaurant));
    },
  };
}
