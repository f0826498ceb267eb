import type { BusinessDirectory } from '../businesses/business-service.js';
import { advertisingCommand } from '../commands/advertising.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import type { ApiModule } from '../platform/module.js';
import type { TaskRunner } from '../platform/tasks/task-runner.js';
import { advertisingAdminRoutes } from './admin-routes.js';
import { AdvertisingJobs, APPLY_AD_JOB } from './advertising-jobs.js';
import { ProgramListings } from './advertising-listings.js';
import { AdvertisingOperator } from './advertising-operator.js';
import { JobStatus } from './advertising-receipts.js';
import { AdvertisingSchedule } from './advertising-schedule.js';
import {
  advertisingFeaturesMigration,
  advertisingJobRequestMigration,
  advertisingMigration,
  advertisingOperatorMigration,
} from './advertising-tables.js';
import { programFeatureRoutes } from './feature-routes.js';
import { ProgramFeatureService } from './feature-service.js';
import { advertisingRoutes } from './routes.js';

/** The advertising family's services, one per use case (docs/advertising.md). */
export interface AdvertisingServices {
  jobs: AdvertisingJobs;
  schedule: AdvertisingSchedule;
  status: JobStatus;
  listings: ProgramListings;
  operator: AdvertisingOperator;
  features: ProgramFeatureService;
}

export function advertisingServices(
  database: Database,
  clock: Clock,
  tasks: TaskRunner,
  businesses: BusinessDirectory,
  options: { processingDelayMs: number; onEventsCommitted: () => void },
): AdvertisingServices {
  const store = () => jobs.store();
  const status = new JobStatus(store);
  const jobs: AdvertisingJobs = new AdvertisingJobs(database, clock, tasks, businesses, status, options);
  return {
    jobs,
    schedule: new AdvertisingSchedule(database, clock, options.onEventsCommitted),
    status,
    listings: new ProgramListings(store, clock, businesses),
    operator: new AdvertisingOperator(database, clock, tasks, businesses, jobs, options.onEventsCommitted),
    features: new ProgramFeatureService(database, clock, { onEventsCommitted: options.onEventsCommitted }),
  };
}

/**
 * Advertising (spec part 2; docs/contract/advertising.md §8): the partner routes (routes.ts), the
 * Program Feature API (feature-routes.ts) and the operator's side (admin-routes.ts).
 */
export function advertisingModule({ jobs, schedule, status, listings, operator, features }: AdvertisingServices): ApiModule {
  return {
    name: 'advertising',
    tags: [
      {
        name: 'advertising',
        description:
          'Advertising reseller API (Basic: data-ingestion credentials): programs through asynchronous jobs, listings, program features',
      },
    ],
    commands: { advertising: (args, flags) => advertisingCommand({ operator, features }, args, flags) },
    migrations: [advertisingMigration, advertisingOperatorMigration, advertisingFeaturesMigration, advertisingJobRequestMigration],
    registerTasks: (tasks) => {
      tasks.register(APPLY_AD_JOB, (payload) => jobs.apply(payload.job_id));
      tasks.schedule({ name: 'advertising.end-of-day', everyMs: 60_000, run: () => schedule.runSchedule() });
    },
    routes: async (fastify) => {
      await fastify.register(advertisingAdminRoutes(operator));
      await fastify.register(programFeatureRoutes(features));
      await fastify.register(advertisingRoutes({ jobs, status, listings }));
    },
  };
}
