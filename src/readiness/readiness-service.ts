import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { ensureReadinessTable } from './readiness-tables.js';
import { newProgress } from './readiness-judge.js';
import { parseProgress } from './readiness-tracker.js';
import { buildReport, reportMarkdown, type ReadinessReport, type ReceiverHealth } from './readiness-report.js';
import { ReadinessStore } from './readiness-store.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import { ApiError } from '../platform/errors.js';

/** Partners summarised at once (a page of the console's partner list). */
export const MAX_SUMMARIES = 100;

/** What readiness needs of other families, supplied where services are built. */
export interface ReadinessSources {
  /** The partner's name and enabled interfaces; throws the partners family's 404 for an unknown one. */
  describe(partnerId: string): Promise<{ name: string; interfaces: string[] }>;
  /** The partner's webhook endpoint and latest deliveries (the webhooks family). */
  receiver(partnerId: string): Promise<ReceiverHealth>;
  /** Writes the request log's waiting entries, so a report includes the calls just answered. */
  flushLog(): Promise<void>;
  /** A page of every partner's id, in a stable order (the partners family's listing). */
  partnerIds(limit: number, offset: number): Promise<string[]>;
}

/** Partners the scoring task reports on each run (docs/readiness.md "Partners by readiness"). */
export const SCORED_PER_RUN = 100;

/**
 * Launch readiness (docs/readiness.md): the report of a partner's milestones from the progress the
 * request log keeps (readiness-tracker.ts), a fresh start, and the operator's approval for launch.
 */
export class Readiness {
  private tableReady: Promise<void> | undefined;
  /** Where the scoring task's walk over the partners goes on from. */
  private walked = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly sources: ReadinessSources,
    /** Whether the request log keeps readiness (PBS_REQUEST_LOG and PBS_READINESS). */
    readonly tracking: boolean,
  ) {}

  private store() {
    return new ReadinessStore(this.database.db);
  }

  /** The partner's name and interfaces; the partners family's 404 for an unknown one. */
  describe(partnerId: string) {
    return this.sources.describe(partnerId);
  }

  async report(partnerId: string): Promise<ReadinessReport> {
    const partner = await this.sources.describe(partnerId);
    if (this.tracking) await this.sources.flushLog();
    await this.ready();
    const store = this.store();
    const [progress, receiver, approval, drills] = await Promise.all([
      store.progressOf(partnerId),
      this.sources.receiver(partnerId),
      store.approvalOf(partnerId),
      store.drillsOf(partnerId, 50),
    ]);
    const report = buildReport({
      partnerId,
      name: partner.name,
      granted: partner.interfaces,
      progress: parseProgress(progress),
      receiver,
      approval,
      drills: drills.filter((d) => d.state !== 'running'),
      now: this.clock.now(),
      realNow: performance.timeOrigin + performance.now(),
    });
    // Every report keeps the partner's place in the ranking current.
    await store.saveScore({
      partner_id: partnerId,
      score: report.score,
      ready: report.ready ? 1 : 0,
      scored_at: Math.floor(this.clock.now()),
    });
    return report;
  }

  /**
   * Partners most ready first, from the scores kept (an index, not every report), each page's
   * summaries built fresh. A partner is scored by its first report or by the scoring task.
   */
  async ranking(limit: number, offset: number) {
    const { rows, total } = await this.store().ranking(limit, offset);
    const { partners } = await this.summaries(rows.map((r) => r.partner_id));
    // Fresh scores may have moved since they were kept: the page reads in their order (stable).
    return { total, limit, offset, partners: partners.sort((a, b) => b.score - a.score) };
  }

  /**
   * The scoring task: reports on the next SCORED_PER_RUN partners, going round all of them, so
   * a score is at most (partners / SCORED_PER_RUN) runs old where nobody looked. A partner gone
   * since is forgotten.
   */
  async scoreNext(): Promise<number> {
    const ids = await this.sources.partnerIds(SCORED_PER_RUN, this.walked);
    this.walked = ids.length < SCORED_PER_RUN ? 0 : this.walked + ids.length;
    for (const id of ids)
      await this.report(id).catch(async (error: unknown) => {
        if (!(error instanceof ApiError && error.code === 'NOT_FOUND')) throw error;
        await this.store().forgetScore(id);
      });
    return ids.length;
  }

  /** Each partner's score, readiness and approval (the console's partner list), at most MAX_SUMMARIES. */
  async summaries(partnerIds: readonly string[]) {
    const reports = await Promise.all([...new Set(partnerIds)].slice(0, MAX_SUMMARIES).map((id) => this.report(id)));
    return {
      partners: reports.map((r) => ({
        partner_id: r.partner_id,
        name: r.name,
        score: r.score,
        ready: r.ready,
        approved: r.approval !== null,
        interfaces: r.interfaces.map((i) => ({ interface: i.interface, score: i.score })),
      })),
    };
  }

  async markdown(partnerId: string): Promise<string> {
    return reportMarkdown(await this.report(partnerId));
  }

  /** Starts over: calls from now on are judged, nothing before. */
  async reset(partnerId: string): Promise<ReadinessReport> {
    await this.sources.describe(partnerId);
    if (this.tracking) await this.sources.flushLog();
    await this.ready();
    const now = Math.floor(this.clock.now());
    await this.database.transact(async (trx) => {
      noteAudit({ target: { kind: 'partner', id: partnerId }, partnerId });
      await new ReadinessStore(trx).saveProgress(this.database.dialect, partnerId, JSON.stringify(newProgress(now)), now);
    });
    return this.report(partnerId);
  }

  /** The operator approves the partner for launch (who and when kept; docs/readiness.md "Approval"). */
  async approve(partnerId: string, by: string, note: string, wallNow: number) {
    await this.sources.describe(partnerId);
    await this.database.transact(async (trx) => {
      const store = new ReadinessStore(trx);
      const before = await store.approvalOf(partnerId);
      noteAudit({ target: { kind: 'partner', id: partnerId }, partnerId, before: before ?? null, after: { note } });
      await store.approve({ partner_id: partnerId, approved_by: by, approved_at: Math.floor(wallNow), note });
    });
    return (await this.report(partnerId)).approval;
  }

  async withdraw(partnerId: string): Promise<void> {
    await this.sources.describe(partnerId);
    await this.database.transact(async (trx) => {
      noteAudit({ target: { kind: 'partner', id: partnerId }, partnerId });
      await new ReadinessStore(trx).withdraw(partnerId);
    });
  }

  async isApproved(partnerId: string): Promise<boolean> {
    return (await this.store().approvalOf(partnerId)) !== undefined;
  }

  private ready(): Promise<void> {
    if (this.database.dialect !== 'sqlite') return Promise.resolve();
    this.tableReady ??= ensureReadinessTable(this.database.db).catch((error: unknown) => {
      this.tableReady = undefined;
      throw error;
    });
    return this.tableReady;
  }
}
