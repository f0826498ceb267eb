import { noteAudit } from '../platform/audit/audit-trail.js';
import type { FastifyInstance } from 'fastify';
import { typedRoutes } from '../platform/http/typed-routes.js';
import { checkClockTime, toIso } from '../platform/clock.js';
import { pingDatabase } from '../platform/db/database.js';
import { databaseAwayError } from '../platform/db/availability.js';
import type { PlatformContext } from '../platform/module.js';
import { apiError } from '../platform/errors.js';
import { secretMatches, sha256Hex } from '../platform/ids.js';
import { pagingQuerySchema } from '../platform/paging.js';
import type { Task } from '../platform/tasks/task-runner.js';

const system = ['system'];

/** Liveness, readiness and Prometheus metrics. */
export function systemRoutes(ctx: PlatformContext, state: { ready: () => boolean }) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const healthBody = { type: 'object', properties: { status: { type: 'string' } } } as const;
    app.get('/healthz', { schema: { tags: system, summary: 'Liveness', response: { 200: healthBody } } }, async () => ({ status: 'ok' }));

    app.get(
      '/readyz',
      {
        schema: {
          tags: system,
          summary: 'Readiness: database reachable and migrated',
          response: { 200: healthBody, 503: { $ref: 'ErrorResponse#' } },
        },
      },
      async () => {
        if (!state.ready()) throw apiError('SERVICE_UNAVAILABLE', 'pbs is starting or shutting down');
        const { availability } = ctx.database;
        const unusable = () => databaseAwayError(`The database is not usable: ${availability.reason ?? 'it did not answer'}`);
        // Known to be away, or being probed: answered without waiting on the database (a probe
        // of a stalled server takes the whole timeout; the probes run on their own meanwhile).
        if (availability.state !== 'up') throw unusable();
        try {
          await pingDatabase(ctx.database);
        } catch (error) {
          availability.report(error);
          throw unusable();
        }
        return { status: 'ready' };
      },
    );

    // With PBS_METRICS_TOKEN set, scrapers present it as a bearer token; unset, /metrics is open
    // (for a network where only the scraper reaches it).
    const metricsTokenHash = ctx.config.metricsToken ? sha256Hex(ctx.config.metricsToken) : undefined;
    app.get(
      '/metrics',
      { schema: { tags: system, summary: 'Prometheus metrics (a bearer token when PBS_METRICS_TOKEN is set)' } },
      async (request, reply) => {
        if (metricsTokenHash) {
          const header = request.headers.authorization;
          if (!header) throw apiError('TOKEN_MISSING');
          const token = /^Bearer (.+)$/i.exec(header)?.[1];
          if (!token || !secretMatches(token, metricsTokenHash)) throw apiError('TOKEN_INVALID');
        }
        reply.type(ctx.metrics.registry.contentType);
        return ctx.metrics.registry.metrics();
      },
    );
  };
}

const clockSchema = {
  type: 'object',
  required: ['now', 'now_unix', 'frozen', 'sandbox'],
  properties: {
    now: { type: 'string', description: 'pbs time (ISO 8601)' },
    now_unix: { type: 'number', description: 'pbs time in seconds' },
    frozen: { type: 'boolean' },
    sandbox: { type: 'boolean', description: 'Whether the clock can be moved' },
  },
} as const;

const taskSchema = {
  type: 'object',
  required: [
    'id',
    'type',
    'state',
    'attempts',
    'max_attempts',
    'run_at',
    'last_error',
    'created_at',
    'updated_at',
    'finished_at',
    'payload',
  ],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'running', 'succeeded', 'dead'] },
    attempts: { type: 'integer' },
    max_attempts: { type: 'integer' },
    run_at: { type: 'string' },
    last_error: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    finished_at: { type: ['string', 'null'] },
    payload: { description: 'What the task was given (its type’s own shape)' },
  },
} as const;
const error = { $ref: 'ErrorResponse#' } as const;

function clockView(ctx: PlatformContext) {
  const now = ctx.clock.now();
  return {
    now: toIso(now),
    now_unix: now / 1000,
    frozen: ctx.sandboxClock?.frozen ?? false,
    sandbox: ctx.sandboxClock !== undefined,
  };
}

function taskView(task: Task) {
  // Shown whatever it holds: the operator's view does not read into it.
  const payload: unknown = JSON.parse(task.payload);
  return {
    id: task.id,
    type: task.type,
    state: task.state,
    attempts: task.attempts,
    max_attempts: task.max_attempts,
    run_at: toIso(task.run_at),
    last_error: task.last_error,
    created_at: toIso(task.created_at),
    updated_at: toIso(task.updated_at),
    finished_at: task.finished_at === null ? null : toIso(task.finished_at),
    payload,
  };
}

/** Operator control of the sandbox clock and visibility of background tasks. */
export function operationsAdminRoutes(ctx: PlatformContext) {
  return async (fastify: FastifyInstance) => {
    const app = typedRoutes(fastify);
    const tags = ['operator'];
    const security = [{ adminToken: [] }];

    app.get(
      '/admin/v1/clock',
      { config: { operator: 'viewer' }, schema: { tags, security, summary: 'Read the clock', response: { 200: clockSchema } } },
      async () => clockView(ctx),
    );

    const requireSandbox = () => {
      if (!ctx.sandboxClock || !ctx.clockSync) {
        throw apiError('CONFLICT', 'The clock can only be moved in sandbox mode (PBS_SANDBOX=1).', { status: 409 });
      }
      return { clock: ctx.sandboxClock, sync: ctx.clockSync };
    };

    app.put(
      '/admin/v1/clock',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Set and/or freeze the sandbox clock',
          description: '`time` (ISO 8601) moves the clock there; `frozen` stops or restarts it; `reset: true` returns to real time.',
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { time: { type: 'string', format: 'date-time' }, frozen: { type: 'boolean' }, reset: { type: 'boolean' } },
          },
          response: { 200: clockSchema, 400: error, 409: error },
        },
      },
      async (request) => {
        const { sync } = requireSandbox();
        const body = request.body ?? {};
        // Checked before anything moves: a refused time leaves the clock as it was.
        const at = body.time === undefined ? undefined : Date.parse(body.time);
        if (at !== undefined && Number.isNaN(at))
          throw apiError('VALIDATION_ERROR', `time is not a date-time: ${body.time}`, { field: 'time' });
        if (at !== undefined) checkClockTime(at);
        noteAudit({ before: clockView(ctx) });
        await sync.move((clock) => {
          if (body.reset) clock.reset();
          if (body.frozen === true) clock.freeze();
          if (at !== undefined) clock.set(at);
          if (body.frozen === false) clock.unfreeze();
        });
        return clockView(ctx);
      },
    );

    app.post(
      '/admin/v1/clock/advance',
      {
        config: { operator: 'admin' },
        schema: {
          tags,
          security,
          summary: 'Move the sandbox clock forward',
          body: {
            type: 'object',
            additionalProperties: false,
            // At most a year a move (and the clock refuses a time it cannot represent).
            properties: {
              seconds: { type: 'number', minimum: 0, maximum: 366 * 86400 },
              minutes: { type: 'number', minimum: 0, maximum: 366 * 1440 },
              hours: { type: 'number', minimum: 0, maximum: 366 * 24 },
            },
          },
          response: { 200: clockSchema, 400: error, 409: error },
        },
      },
      async (request) => {
        const { sync } = requireSandbox();
        const b = request.body ?? {};
        const ms = ((b.seconds ?? 0) + (b.minutes ?? 0) * 60 + (b.hours ?? 0) * 3600) * 1000;
        noteAudit({ before: clockView(ctx) });
        await sync.move((clock) => clock.advance(ms));
        return clockView(ctx);
      },
    );

    app.get(
      '/admin/v1/tasks',
      {
        config: { operator: 'viewer' },
        schema: {
          tags,
          security,
          summary: 'List background tasks (newest first)',
          querystring: pagingQuerySchema(
            { defaultLimit: 50, maxLimit: 500 },
            { state: { type: 'string', enum: ['pending', 'running', 'succeeded', 'dead'] }, type: { type: 'string', maxLength: 200 } },
          ),
          response: { 200: { type: 'object', required: ['tasks'], properties: { tasks: { type: 'array', items: taskSchema } } } },
        },
      },
      async (request) => {
        const q = request.query;
        return { tasks: (await ctx.tasks.list(q)).map(taskView) };
      },
    );

    const taskParams = { type: 'object', required: ['task_id'], properties: { task_id: { type: 'string', maxLength: 64 } } } as const;
    app.get(
      '/admin/v1/tasks/:task_id',
      {
        config: { operator: 'viewer' },
        schema: { tags, security, summary: 'Show a task', params: taskParams, response: { 200: taskSchema, 404: error } },
      },
      async (request) => {
        const task = await ctx.tasks.get(request.params.task_id);
        if (!task) throw apiError('NOT_FOUND', 'Task not found');
        return taskView(task);
      },
    );

    app.post(
      '/admin/v1/tasks/:task_id/retry',
      {
        config: { operator: 'support' },
        schema: {
          tags,
          security,
          summary: 'Queue a dead task again',
          params: taskParams,
          response: { 200: taskSchema, 404: error, 409: error },
        },
      },
      async (request) => {
        return taskView(await ctx.tasks.retry(request.params.task_id));
      },
    );

    // The routes' old names (before background jobs became tasks) redirect, method and body kept.
    for (const [method, from] of [
      ['GET', '/admin/v1/jobs'],
      ['GET', '/admin/v1/jobs/:task_id'],
      ['POST', '/admin/v1/jobs/:task_id/retry'],
    ] as const) {
      app.route({
        method,
        url: from,
        config: { operator: method === 'GET' ? 'viewer' : 'support' },
        schema: { hide: true },
        handler: async (request, reply) => reply.redirect(request.url.replace('/admin/v1/jobs', '/admin/v1/tasks'), 308),
      });
    }
  };
}
