import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Clock, ControllableClock } from './clock.js';
import type { ClockSync } from './clock-sync.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PbsMigration } from './db/migrate.js';
import type { TaskRunner } from './tasks/task-runner.js';
import type { Metrics } from './metrics.js';

/** What every family gets to build its services and routes. */
export interface PlatformContext {
  config: Config;
  database: Database;
  clock: Clock;
  /** Wall time, for what must not move with the sandbox clock (sessions, per-second limits); tests replace it. */
  wallClock: () => number;
  /** Present in sandbox mode: the clock the operator can move. */
  sandboxClock: ControllableClock | undefined;
  clockSync: ClockSync | undefined;
  /** Background work: typed tasks and schedules on the pbs clock. */
  tasks: TaskRunner;
  metrics: Metrics;
  log: FastifyBaseLogger;
}

/** A group of operations in the OpenAPI document (and the /docs page), with what it is. */
export interface OpenApiTag {
  name: string;
  description: string;
}

/** `pbs <group> <sub> …`: runs one CLI command over the family's services; prints what it returns. */
export type CommandGroup = (args: string[], flags: Record<string, string>) => Promise<unknown>;

/**
 * A family of the API (reservations, advertising, …) plugs in as one module: its migrations,
 * its routes (partner routes declare `config.partner`, operator routes `config.admin`), the
 * OpenAPI tags they use, its CLI command groups, and the task types and schedules it runs.
 * Modules never reach into each other's tables (docs/family-layout.md).
 */
export interface ApiModule {
  name: string;
  /** The tags of its partner routes, described; operator routes use the platform's `operator` tag. */
  tags?: OpenApiTag[];
  /** Its `pbs` command groups, by name (src/commands/ holds them). */
  commands?: Record<string, CommandGroup>;
  migrations?: PbsMigration[];
  /** Registers task handlers and schedules; called before the task runner starts. */
  registerTasks?: (tasks: TaskRunner) => void;
  routes?: (app: FastifyInstance) => Promise<void> | void;
}
