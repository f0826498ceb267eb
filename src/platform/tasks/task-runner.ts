import { apiError } from '../errors.js';
import os from 'node:os';
import { Ajv, type ValidateFunction } from 'ajv';
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, DbOrTx } from '../db/database.js';
import type { TasksTable, TaskState } from '../db/platform-tables.js';
import { newId, randomBase62 } from '../ids.js';

/**
 * Background work is called "tasks" (the advertising interface has partner-visible "jobs" with
 * ids and receipts; the two must not be confused in names, tables or the operator API).
 */
export type Task = Selectable<TasksTable>;

export interface TaskContext {
  task: Task;
  attempt: number;
}

export interface TaskTypeOptions {
  /** Attempts before the task is moved to the dead state. */
  maxAttempts?: number;
  /** Delay before attempt n+1 after n failures; default exponential from 1 s, capped at 1 h, with jitter. */
  backoffMs?: (failedAttempts: number) => number;
}

/** A kind of task: its name, the JSON schema its payload must meet, and how it is retried. */
export interface TaskType<Payload> extends TaskTypeOptions {
  readonly name: string;
  readonly schema: object;
  /** Compiled from `schema`. */
  readonly validate: ValidateFunction;
  /** Only carries the payload type. */
  readonly payload?: Payload;
}

const ajv = new Ajv({ allErrors: false, strict: false });

/**
 * Declares a task type. Payloads are checked against `schema` when enqueued (a wrong payload is
 * a bug in the caller: it throws) and again when run (a stored payload that no longer fits goes
 * straight to the dead state instead of failing attempt after attempt).
 */
export function defineTask<Payload>(name: string, schema: object, options: TaskTypeOptions = {}): TaskType<Payload> {
  return { name, schema, validate: ajv.compile(schema), ...options };
}

function payloadProblem(type: TaskType<unknown>, payload: unknown): string | undefined {
  if (type.validate(payload)) return undefined;
  const error = type.validate.errors?.[0];
  return `payload of ${type.name} does not match its schema: ${error?.instancePath || '(root)'} ${error?.message ?? ''}`.trim();
}

/** Work that runs every so often on the pbs clock (a frozen sandbox clock holds it; moving the clock runs it). */
export interface Schedule {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

export interface EnqueueOptions {
  runAt?: number;
  maxAttempts?: number;
  id?: string;
}

export function exponentialBackoff(baseMs: number, capMs: number, jitter = 0.2) {
  return (failedAttempts: number): number => {
    const raw = Math.min(capMs, baseMs * 2 ** Math.max(0, failedAttempts - 1));
    return Math.round(raw * (1 - jitter + Math.random() * 2 * jitter));
  };
}

const defaultBackoff = exponentialBackoff(1000, 3600_000);

export interface TaskRunnerOptions {
  pollMs: number;
  batchSize: number;
  /** How long a claimed task stays with its worker (wall time) before another may take it over. */
  leaseMs: number;
  onError?: (error: unknown, task?: Task) => void;
  onOutcome?: (type: string, outcome: 'succeeded' | 'retried' | 'dead') => void;
}

type AnyHandler = (payload: unknown, context: TaskContext) => Promise<void>;

/**
 * A durable task queue in the application database. Tasks are written with `enqueue` inside the
 * transaction of the change that causes them; workers claim due tasks with FOR UPDATE SKIP LOCKED
 * on PostgreSQL (SQLite has one writer, so a plain UPDATE … RETURNING is already exclusive).
 * Due times follow the injectable clock; leases follow the wall clock so a frozen sandbox clock
 * cannot strand a task held by a dead worker. Schedules (recurring work) are claimed the same
 * way, one process at a time, through `task_schedules`.
 */
export class TaskRunner {
  private readonly handlers = new Map<string, { handler: AnyHandler; type: TaskType<unknown> }>();
  private readonly schedules: Schedule[] = [];
  private readonly workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private draining: Promise<void> | undefined;
  private wakeRequested = false;
  private unsubscribeClock: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: TaskRunnerOptions,
  ) {}

  register<Payload>(type: TaskType<Payload>, handler: (payload: Payload, context: TaskContext) => Promise<void>): void {
    if (this.handlers.has(type.name)) throw new Error(`task type ${type.name} registered twice`);
    // Cast: handlers of every payload type share one map; `execute` checks a payload against its
    // type's schema before the handler sees it.
    this.handlers.set(type.name, { handler: handler as AnyHandler, type: type });
  }

  /** Runs `schedule.run` every `everyMs` of pbs time, in one process at a time. */
  schedule(schedule: Schedule): void {
    if (this.schedules.some((s) => s.name === schedule.name)) throw new Error(`schedule ${schedule.name} registered twice`);
    this.schedules.push(schedule);
  }

  /** Writes a task; pass the transaction of the change that causes it. */
  async enqueue<Payload>(db: DbOrTx, type: TaskType<Payload>, payload: Payload, options: EnqueueOptions = {}): Promise<string> {
    const problem = payloadProblem(type, payload);
    if (problem) throw new Error(problem);
    const now = this.clock.now();
    const id = options.id ?? newId();
    await db
      .insertInto('tasks')
      .values({
        id,
        type: type.name,
        payload: JSON.stringify(payload ?? null),
        state: 'pending',
        max_attempts: options.maxAttempts ?? type.maxAttempts ?? this.handlers.get(type.name)?.type.maxAttempts ?? 10,
        run_at: options.runAt ?? now,
        created_at: now,
        updated_at: now,
      })
      .execute();
    this.wake();
    return id;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribeClock = this.clock.onChange(() => this.wake());
    this.scheduleLoop(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribeClock?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.draining;
  }

  /** Asks the loop to look for due work now (after an enqueue or a clock jump). */
  wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.wakeRequested = true;
      return;
    }
    this.scheduleLoop(0);
  }

  /** Runs due schedules, then due tasks until none is left; returns how many tasks ran. Tests call this instead of waiting. */
  async runDue(): Promise<number> {
    await this.runSchedules();
    let total = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return total;
      await Promise.all(claimed.map((task) => this.execute(task)));
      total += claimed.length;
    }
  }

  async list(filter: { state?: TaskState; type?: string; limit?: number; offset?: number } = {}): Promise<Task[]> {
    let q = this.database.db.selectFrom('tasks').selectAll();
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.type) q = q.where('type', '=', filter.type);
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(filter.limit ?? 50)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async get(id: string): Promise<Task | undefined> {
    return this.database.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Puts a dead task back in the queue with a fresh set of attempts. */
  async retry(id: string): Promise<Task> {
    const now = this.clock.now();
    // Refused inside the transaction: a retry that did not happen leaves no audit record.
    const updated = await this.database.transact(async (trx) => {
      const row = await trx
        .updateTable('tasks')
        .set({ state: 'pending', attempts: 0, run_at: now, updated_at: now, finished_at: null, locked_by: null, locked_until: null })
        .where('id', '=', id)
        .where('state', '=', 'dead')
        .returningAll()
        .executeTakeFirst();
      if (row) return row;
      // Read on the transaction: on SQLite a read beside it would wait for it.
      const exists = await trx.selectFrom('tasks').select('id').where('id', '=', id).executeTakeFirst();
      throw exists ? apiError('CONFLICT', 'Only dead tasks can be retried') : apiError('NOT_FOUND', 'Task not found');
    });
    this.wake();
    return updated;
  }

  private scheduleLoop(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draining = this.loopOnce().finally(() => {
        this.draining = undefined;
        if (this.wakeRequested) {
          this.wakeRequested = false;
          this.scheduleLoop(0);
        }
      });
    }, delayMs);
    this.timer.unref();
  }

  private async loopOnce(): Promise<void> {
    try {
      const ran = await this.runDue();
      void ran;
    } catch (error) {
      this.options.onError?.(error);
    }
    this.scheduleLoop(this.options.pollMs);
  }

  /**
   * Runs each schedule that is due on the pbs clock, claiming it first (a lease on the wall clock,
   * like tasks) so that of several processes only one runs it. A new schedule is due at once; one
   * whose next run is further ahead than its period (the sandbox clock was moved back) is due too.
   */
  private async runSchedules(): Promise<void> {
    if (this.schedules.length === 0) return;
    const db = this.database.db;
    // One read says which schedules may be due; only those are claimed (the claim checks again).
    // Two statements per schedule on every poll were most of an idle server's work.
    const rows = new Map(
      (await db.selectFrom('task_schedules').select(['name', 'next_run_at', 'locked_until']).execute()).map((row) => [row.name, row]),
    );
    const missing = this.schedules.filter((schedule) => !rows.has(schedule.name));
    if (missing.length > 0) {
      const now = this.clock.now();
      await db
        .insertInto('task_schedules')
        .values(
          missing.map((s) => ({
            name: s.name,
            next_run_at: now,
            locked_by: null,
            locked_until: null,
            last_run_at: null,
            last_error: null,
          })),
        )
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    }
    for (const schedule of this.schedules) {
      const now = this.clock.now();
      const wall = Date.now();
      const row = rows.get(schedule.name);
      const due = !row || row.next_run_at <= now || row.next_run_at > now + schedule.everyMs;
      if (!due || (row && row.locked_until !== null && row.locked_until >= wall)) continue;
      const claimed = await db
        .updateTable('task_schedules')
        .set({ locked_by: this.workerId, locked_until: wall + this.options.leaseMs })
        .where('name', '=', schedule.name)
        .where((eb) => eb.or([eb('next_run_at', '<=', now), eb('next_run_at', '>', now + schedule.everyMs)]))
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wall)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) continue;
      let error: string | null = null;
      try {
        await schedule.run();
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
        this.options.onError?.(e);
      }
      await db
        .updateTable('task_schedules')
        .set({
          next_run_at: this.clock.now() + schedule.everyMs,
          locked_by: null,
          locked_until: null,
          last_run_at: this.clock.now(),
          last_error: error,
        })
        .where('name', '=', schedule.name)
        .where('locked_by', '=', this.workerId)
        .execute();
    }
  }

  private async claim(): Promise<Task[]> {
    const now = this.clock.now();
    const wallNow = Date.now();
    const lockedUntil = wallNow + this.options.leaseMs;
    const limit = this.options.batchSize;
    const lockClause = this.database.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const types = [...this.handlers.keys()];
    if (types.length === 0) return [];
    const result = await sql<Task>`
      update tasks set state = 'running', attempts = attempts + 1, locked_by = ${this.workerId},
        locked_until = ${lockedUntil}, updated_at = ${now}
      where id in (
        select id from tasks
        where type in (${sql.join(types)})
          and ((state = 'pending' and run_at <= ${now}) or (state = 'running' and locked_until < ${wallNow}))
        order by run_at
        limit ${limit}
        ${lockClause}
      )
      returning *`.execute(this.database.db);
    return result.rows;
  }

  private async execute(task: Task): Promise<void> {
    const entry = this.handlers.get(task.type)!;
    const payload: unknown = JSON.parse(task.payload);
    const problem = payloadProblem(entry.type, payload);
    if (problem) {
      // Retrying cannot make it fit: straight to the dead state, where the operator sees why.
      await this.finish(task, { state: 'dead', last_error: problem });
      this.options.onOutcome?.(task.type, 'dead');
      return;
    }
    try {
      await entry.handler(payload, { task: task, attempt: task.attempts });
      await this.finish(task, { state: 'succeeded', last_error: null });
      this.options.onOutcome?.(task.type, 'succeeded');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (task.attempts >= task.max_attempts) {
        await this.finish(task, { state: 'dead', last_error: message });
        this.options.onOutcome?.(task.type, 'dead');
      } else {
        const delay = (entry.type.backoffMs ?? defaultBackoff)(task.attempts);
        await this.finish(task, { state: 'pending', last_error: message, run_at: this.clock.now() + delay });
        this.options.onOutcome?.(task.type, 'retried');
      }
      this.options.onError?.(error, task);
    }
  }

  private async finish(task: Task, change: { state: TaskState; last_error: string | null; run_at?: number }): Promise<void> {
    const now = this.clock.now();
    const terminal = change.state === 'succeeded' || change.state === 'dead';
    await this.database.db
      .updateTable('tasks')
      .set({ ...change, updated_at: now, locked_by: null, locked_until: null, finished_at: terminal ? now : null })
      .where('id', '=', task.id)
      // Only the worker that holds the lease may settle the task.
      .where('locked_by', '=', this.workerId)
      .execute();
  }
}
