import type { BusinessDirectory } from '../businesses/business-service.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import { toIsoOffset } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { afterwards } from '../platform/at-once.js';
import { apiError } from '../platform/errors.js';
import { jsonLines } from '../platform/json-lines.js';
import { daysBetween, mondayOf, parseDate } from '../platform/local-time.js';
import { single } from '../platform/query.js';
import type { Page } from '../platform/paging.js';
import { ReadCache } from '../platform/read-cache.js';
import { defineTask, type TaskRunner } from '../platform/tasks/task-runner.js';
import { activityLine } from './engagement-input.js';
import { EngagementStore, type ActivityRow, type ScoreRow } from './engagement-store.js';
import { ACTIVITY_FIELDS, NORTH_AMERICA, type Activity } from './scoring.js';
import { recordOf } from '../platform/values.js';
import { BoundedMap } from '../platform/bounded-map.js';

/** Lines one load takes through the operator API (the CLI sends any number, in batches). */
export const MAX_ACTIVITY_LINES = 100_000;
/** Rows written per transaction of a load, and per progress report. */
const LOAD_BATCH = 5000;
/** The longest date range a partner may ask for, in weeks (five years). */
export const MAX_RANGE_WEEKS = 260;
const TOPIC = 'engagement';
/** Whole answers kept (`answers`), and the longest range kept so: 2,000 answers of 20 businesses × 5 weeks, ≈ 22 MB at most. */
const MAX_KEPT_ANSWERS = 2000;
const MAX_KEPT_ANSWER_WEEKS = 5;
/** The group (and key) of the latest scored week among the kept parts. */
const LATEST = '\u0000latest';

/** Scores a week whose activity changed (written in the load's transaction). */
export const scoreWeekTask = defineTask<{ week: string }>('engagement.score-week', {
  type: 'object',
  required: ['week'],
  additionalProperties: false,
  properties: { week: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
});

export interface WeekSummary {
  week: string;
  businesses_scored: number;
  scored: boolean;
}

const invalid = (field: string, description: string) => apiError('INVALID_REQUEST', description, { field });

/**
 * Weekly engagement metrics (spec part 5; docs/contract/reviews-and-engagement.md §7.2; docs/engagement.md): the operator loads
 * each business's weekly activity; a task scores each changed week against every North American
 * business of that week; partners read the scores of up to 20 linked businesses.
 */
export class EngagementService {
  /**
   * Each business's part of an answer (JSON bytes) per range, until a week is scored again here
   * or in another process (or 30 s).
   */
  private readonly parts: ReadCache<Buffer>;
  /**
   * Whole answers of ranges of a few weeks, by range and the list of business ids: a partner
   * polling its businesses asks for the same lists again, and then one lookup stands for twenty.
   * Forgotten with the parts.
   */
  private readonly answers: ReadCache<Buffer>;
  /** The latest scored week ('' when none), forgotten with the parts. */
  private readonly latestWeek: ReadCache<string>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tasks: TaskRunner,
    private readonly businesses: BusinessDirectory,
    private readonly changes: ChangeFeed,
  ) {
    this.parts = new ReadCache(changes, TOPIC, { ttlMs: 30_000, maxEntries: 100_000 });
    this.answers = new ReadCache(changes, TOPIC, { ttlMs: 30_000, maxEntries: MAX_KEPT_ANSWERS });
    this.latestWeek = new ReadCache(changes, TOPIC, { ttlMs: 30_000, maxEntries: 1 });
  }

  store(db: DbOrTx = this.database.db) {
    return new EngagementStore(db, this.database.dialect);
  }

  registerTasks(tasks: TaskRunner): void {
    tasks.register(scoreWeekTask, async ({ week }) => void (await this.scoreWeek(week)));
    // The safety net: a week whose load failed midway, or whose task was lost, is scored within the hour.
    tasks.schedule({ name: 'engagement.score-changed-weeks', everyMs: 3600_000, run: async () => void (await this.scoreChangedWeeks()) });
  }

  // ---- partner read ------------------------------------------------------------------------

  /**
   * `GET /v3/businesses/engagement` for businesses already resolved and checked: each with its
   * weeks in the range (default: the latest scored week), in the order given. Answers the JSON
   * bytes, put together from each business's part, kept serialized per range: at once (no
   * promise) when the latest week and every part are kept, as they nearly always are.
   */
  metrics(businessIds: readonly string[], query: Record<string, unknown>): Buffer | Promise<Buffer> {
    const start = single(query.date_range_start);
    const end = single(query.date_range_end);
    const latest = this.latestWeek.peek(LATEST, LATEST);
    if (latest !== undefined) return this.metricsIn(businessIds, this.rangeOf(start, end, latest || undefined));
    // '' when no week is scored yet.
    return this.latestWeek
      .get(LATEST, LATEST, async () => (await this.store().latestScoredWeek()) ?? '')
      .then((week) => this.metricsIn(businessIds, this.rangeOf(start, end, week || undefined)));
  }

  /**
   * The answer: kept whole for a range of a few weeks (the size of a kept answer stays small),
   * else put together from each business's part for `range` (parts are grouped by range: a
   * request looks them up in one map).
   */
  private metricsIn(businessIds: readonly string[], range: WeekRange | undefined): Buffer | Promise<Buffer> {
    const group = range?.key ?? 'none';
    const fromParts = () =>
      afterwards(
        this.parts.getMany(group, businessIds, (ids) => this.loadParts(ids, range)),
        answer,
      );
    if (range !== undefined && range.weeks > MAX_KEPT_ANSWER_WEEKS) return fromParts();
    return this.answers.read(group, businessIds.join(','), async () => fromParts());
  }

  /** Each business's part of an answer for `range`: its weeks in the range, as JSON bytes. */
  private async loadParts(ids: string[], range: WeekRange | undefined): Promise<Buffer[]> {
    const byBusiness = new Map<string, ScoreRow[]>(ids.map((id) => [id, []]));
    if (range)
      for (const r of await this.store().scoresOf(ids))
        if (r.week_start >= range.from && r.week_start <= range.to) byBusiness.get(r.business_id)!.push(r);
    return ids.map((id) =>
      jsonBytes({
        business_id: id,
        metrics: byBusiness.get(id)!.map((r) => ({
          start_of_week_date: r.week_start,
          engagement_metric: r.engagement_metric,
          intent_metric: r.intent_metric,
          transaction_metric: r.transaction_metric,
        })),
      }),
    );
  }

  /** Ranges worked out lately, by what they were worked out from (the dates given and the latest week). */
  private readonly ranges = new BoundedMap<string, WeekRange | null>(1_000);

  /** The weeks asked for, as their Mondays; undefined when nothing is scored and no range was given. */
  private rangeOf(start: string | undefined, end: string | undefined, latest: string | undefined): WeekRange | undefined {
    const key = `${start ?? ''}|${end ?? ''}|${latest ?? ''}`;
    const known = this.ranges.get(key);
    if (known !== undefined) return known ?? undefined;
    const date = (value: string | undefined, field: string) => {
      if (value === undefined || value === '') return undefined;
      if (!parseDate(value)) throw invalid(field, `${field} must be a date, YYYY-MM-DD`);
      return mondayOf(value);
    };
    const from = date(start, 'date_range_start');
    const to = date(end, 'date_range_end');
    if (from !== undefined && to !== undefined && from > to)
      throw invalid('date_range_start', 'date_range_start must not be after date_range_end');
    let range: WeekRange | undefined;
    if (latest !== undefined || from !== undefined || to !== undefined) {
      const last = to ?? (from !== undefined && latest !== undefined && latest < from ? from : (latest ?? from!));
      const first = from ?? (latest !== undefined && latest < last ? latest : last);
      const weeks = daysBetween(first, last) / 7 + 1;
      if (weeks > MAX_RANGE_WEEKS) throw invalid('date_range_end', `At most ${MAX_RANGE_WEEKS} weeks per request`);
      range = { from: first, to: last, key: `${first}|${last}`, weeks };
    }
    this.ranges.set(key, range ?? null);
    return range;
  }

  // ---- operator ----------------------------------------------------------------------------

  /**
   * Loads weekly activity from JSON lines `{"business_id" (id or alias), "week" (any day of it;
   * its Monday counts), "page_views", …}`; a (business, week) given again replaces its figures.
   * Every line is checked first (nothing is stored when one is wrong); then batches are stored,
   * each reported to `onProgress`, and the weeks touched are scored again by a task.
   */
  async importJsonLines(
    text: string,
    options: { maxLines?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ imported: number; weeks: string[] }> {
    const maxLines = options.maxLines ?? MAX_ACTIVITY_LINES;
    const now = this.clock.now();
    const parsed: Array<{ business: string; row: ActivityRow; where: string }> = [];
    for (const { value, where } of jsonLines(text, maxLines)) parsed.push({ ...activityLine(value, where, now), where });
    if (parsed.length === 0) throw apiError('VALIDATION_ERROR', 'The load holds no lines.');
    const resolved = await this.businesses.resolveIds([...new Set(parsed.map((p) => p.business))]);
    const seen = new Set<string>();
    for (const p of parsed) {
      const id = resolved.get(p.business);
      if (id === undefined)
        throw apiError('VALIDATION_ERROR', `${p.where}: no such business ${p.business}; nothing was loaded.`, { field: 'business_id' });
      p.row.business_id = id;
      const key = `${p.row.week_start}|${id}`;
      if (seen.has(key))
        throw apiError('VALIDATION_ERROR', `${p.where}: business ${id} appears twice for the week of ${p.row.week_start}`, {
          field: 'week',
        });
      seen.add(key);
    }
    const weeks = [...new Set(parsed.map((p) => p.row.week_start))].sort();
    for (let i = 0; i < parsed.length; i += LOAD_BATCH) {
      const batch = parsed.slice(i, i + LOAD_BATCH).map((p) => p.row);
      const last = i + LOAD_BATCH >= parsed.length;
      await this.database.transact(async (trx) => {
        const store = this.store(trx);
        await store.upsertActivity(batch);
        await store.touchWeeks([...new Set(batch.map((r) => r.week_start))], now);
        // The last batch asks for the scoring of every week the load touched (earlier ones are dirty already).
        if (last) for (const week of weeks) await this.tasks.enqueue(trx, scoreWeekTask, { week });
      });
      options.onProgress?.(Math.min(i + LOAD_BATCH, parsed.length), parsed.length);
    }
    return { imported: parsed.length, weeks };
  }

  /**
   * Scores one week now: its North American businesses ranked against each other, in one
   * transaction that holds the week's row (a second process waits, then finds it scored).
   */
  async scoreWeek(week: string): Promise<WeekSummary> {
    const summary = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const row = await store.lockWeek(week);
      if (!row) throw apiError('NOT_FOUND', `No activity loaded for the week of ${week}`);
      if (row.scored_version === row.data_version && row.scored_at !== null)
        return { week, businesses_scored: row.businesses_scored, scored: true };
      const scored = await store.scoreInPlace(week, this.businesses.idsInCountries(NORTH_AMERICA));
      await store.markScored(week, row.data_version, this.clock.now(), scored);
      // Every range and the latest week may have changed: '' forgets everything kept.
      await this.changes.publish(trx, TOPIC, '');
      return { week, businesses_scored: scored, scored: true };
    });
    this.forgetKept();
    return summary;
  }

  /** Everything kept for reads: scoring a week may change any answer. */
  private forgetKept(): void {
    this.parts.forget();
    this.answers.forget();
    this.latestWeek.forget();
  }

  /** The operator's "score now" for the week holding `date`. */
  scoreWeekOf(date: string): Promise<WeekSummary> {
    if (!parseDate(date)) throw apiError('VALIDATION_ERROR', 'week must be a date, YYYY-MM-DD', { field: 'week' });
    return this.scoreWeek(mondayOf(date));
  }

  /** Scores every week loaded since its last scoring. */
  async scoreChangedWeeks(): Promise<WeekSummary[]> {
    const out: WeekSummary[] = [];
    for (const week of await this.store().dirtyWeeks()) out.push(await this.scoreWeek(week));
    return out;
  }

  /** Paging checked by the route's schema (pagingQuerySchema). */
  async weeks({ limit, offset }: Page) {
    const rows = await this.store().weeks(limit, offset);
    return {
      weeks: rows.map((w) => ({
        week: w.week_start,
        scored: w.scored_at !== null && w.scored_version === w.data_version,
        scored_at: w.scored_at === null ? null : toIsoOffset(Number(w.scored_at)),
        businesses_scored: w.businesses_scored,
        changed_at: toIsoOffset(Number(w.changed_at)),
      })),
    };
  }

  /** A business's activity and scores by week (the operator's view). */
  async business(idOrAlias: string) {
    const business = await this.businesses.requireRef(idOrAlias);
    const [activity, scores] = await Promise.all([this.store().activityOf(business.id), this.store().scoresOf([business.id])]);
    const byWeek = new Map(scores.map((s) => [s.week_start, s]));
    return {
      business_id: business.id,
      weeks: activity.map((a) => {
        const s = byWeek.get(a.week_start);
        return {
          week: a.week_start,
          activity: activityOf(a),
          scores: s
            ? { engagement_metric: s.engagement_metric, intent_metric: s.intent_metric, transaction_metric: s.transaction_metric }
            : null,
        };
      }),
    };
  }
}

/** Weeks asked for, as Mondays, and the key their kept parts are grouped under. */
interface WeekRange {
  from: string;
  to: string;
  key: string;
  weeks: number;
}

const jsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
const HEAD = Buffer.from('{"data":[');
const TAIL = Buffer.from(']}');
const COMMA = 0x2c;

/** The answer's bytes from each business's part (kept as bytes: copied, not encoded again). */
function answer(parts: Buffer[]): Buffer {
  let length = HEAD.length + TAIL.length + Math.max(parts.length - 1, 0);
  for (const part of parts) length += part.length;
  const out = Buffer.allocUnsafe(length);
  out.set(HEAD, 0);
  let at = HEAD.length;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(parts[i], at);
    at += parts[i].length;
  }
  out.set(TAIL, at);
  return out;
}

function activityOf(row: ActivityRow): Activity {
  return recordOf(ACTIVITY_FIELDS, (field) => Number(row[field]));
}
