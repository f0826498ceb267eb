import os from 'node:os';
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, DbOrTx } from '../db/database.js';
import type { JobsTable, JobState } from '../db/platform-tables.js';
import { newId, randomBase62 } from '../ids.js';

export type Job = Selectable<JobsTable>;

export interface JobContext {
  job: Job;
  attempt: number;
}

export interface JobTypeOptions {
  /** Attempts before the job is moved to the dead state. */
  maxAttempts?: number;
  /** Delay before attempt n+1 after n failures; default exponential from 1 s, capped at 1 h, with jitter. */
  backoffMs?: (failedAttempts: number) => number;
}

export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

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

export interface JobRunnerOptions {
  pollMs: number;
  batchSize: number;
  /** How long a claimed job stays with its worker (wall time) before another may take it over. */
  leaseMs: number;
  onError?: (error: unknown, job?: Job) => void;
  onOutcome?: (type: string, outcome: 'succeeded' | 'retried' | 'dead') => void;
}

/**
 * A durable job queue in the application database. Jobs are written with `enqueue` inside the
 * transaction of the change that causes them; workers claim due jobs with FOR UPDATE SKIP LOCKED
 * on PostgreSQL (SQLite has one writer, so a plain UPDATE … RETURNING is already exclusive).
 * Due times follow the injectable clock; leases follow the wall clock so a frozen sandbox clock
 * cannot strand a job held by a dead worker.
 */
export class JobRunner {
  private readonly handlers = new Map<string, { handler: JobHandler; options: JobTypeOptions }>();
  private readonly workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private draining: Promise<void> | undefined;
  private wakeRequested = false;
  private unsubscribeClock: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: JobRunnerOptions,
  ) {}

  register(type: string, handler: JobHandler, options: JobTypeOptions = {}): void {
    if (this.handlers.has(type)) throw new Error(`job type ${type} registered twice`);
    this.handlers.set(type, { handler, options });
  }

  /** Writes a job; pass the transaction of the change that causes it. */
  async enqueue(db: DbOrTx, type: string, payload: unknown, options: EnqueueOptions = {}): Promise<string> {
    const now = this.clock.now();
    const id = options.id ?? newId();
    await db
      .insertInto('jobs')
      .values({
        id,
        type,
        payload: JSON.stringify(payload ?? null),
        state: 'pending',
        max_attempts: options.maxAttempts ?? this.handlers.get(type)?.options.maxAttempts ?? 10,
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
    this.schedule(0);
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
    this.schedule(0);
  }

  /** Runs due jobs until none is left; returns how many ran. Tests call this instead of waiting. */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return total;
      await Promise.all(claimed.map((job) => this.execute(job)));
      total += claimed.length;
    }
  }

  async list(filter: { state?: JobState; type?: string; limit?: number; offset?: number } = {}): Promise<Job[]> {
    let q = this.database.db.selectFrom('jobs').selectAll();
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.type) q = q.where('type', '=', filter.type);
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(filter.limit ?? 50)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async get(id: string): Promise<Job | undefined> {
    return this.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Puts a dead job back in the queue with a fresh set of attempts. */
  async retry(id: string): Promise<Job | undefined> {
    const now = this.clock.now();
    const updated = await this.database.db
      .updateTable('jobs')
      .set({ state: 'pending', attempts: 0, run_at: now, updated_at: now, finished_at: null, locked_by: null, locked_until: null })
      .where('id', '=', id)
      .where('state', '=', 'dead')
      .returningAll()
      .executeTakeFirst();
    if (updated) this.wake();
    return updated;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draining = this.loopOnce().finally(() => {
        this.draining = undefined;
        if (this.wakeRequested) {
          this.wakeRequested = false;
          this.schedule(0);
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
    this.schedule(this.options.pollMs);
  }

  private async claim(): Promise<Job[]> {
    const now = this.clock.now();
    const wallNow = Date.now();
    const lockedUntil = wallNow + this.options.leaseMs;
    const limit = this.options.batchSize;
    const lockClause = this.database.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const types = [...this.handlers.keys()];
    if (types.length === 0) return [];
    const result = await sql<Job>`
      update jobs set state = 'running', attempts = attempts + 1, locked_by = ${this.workerId},
        locked_until = ${lockedUntil}, updated_at = ${now}
      where id in (
        select id from jobs
        where type in (${sql.join(types)})
          and ((state = 'pending' and run_at <= ${now}) or (state = 'running' and locked_until < ${wallNow}))
        order by run_at
        limit ${limit}
        ${lockClause}
      )
      returning *`.execute(this.database.db);
    return result.rows;
  }

  private async execute(job: Job): Promise<void> {
    const entry = this.handlers.get(job.type)!;
    try {
      await entry.handler(JSON.parse(job.payload), { job, attempt: job.attempts });
      await this.finish(job, { state: 'succeeded', last_error: null });
      this.options.onOutcome?.(job.type, 'succeeded');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (job.attempts >= job.max_attempts) {
        await this.finish(job, { state: 'dead', last_error: message });
        this.options.onOutcome?.(job.type, 'dead');
      } else {
        const delay = (entry.options.backoffMs ?? defaultBackoff)(job.attempts);
        await this.finish(job, { state: 'pending', last_error: message, run_at: this.clock.now() + delay });
        this.options.onOutcome?.(job.type, 'retried');
      }
      this.options.onError?.(error, job);
    }
  }

  private async finish(job: Job, change: { state: JobState; last_error: string | null; run_at?: number }): Promise<void> {
    const now = this.clock.now();
    const terminal = change.state === 'succeeded' || change.state === 'dead';
    await this.database.db
      .updateTable('jobs')
      .set({ ...change, updated_at: now, locked_by: null, locked_until: null, finished_at: terminal ? now : null })
      .where('id', '=', job.id)
      // Only the worker that holds the lease may settle the job.
      .where('locked_by', '=', this.workerId)
      .execute();
  }
}
