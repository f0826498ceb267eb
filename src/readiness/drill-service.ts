import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { isOneOf } from '../platform/query.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import {
  DRILL_KINDS,
  DRILL_SECONDS,
  DRILL_STATES,
  DRILLS,
  gradeDrill,
  snapshotOf,
  WEBHOOK_DRILL_EVENTS,
  type DrillDeliveries,
  type DrillGrade,
  type DrillKindSpec,
  type DrillSnapshot,
} from './drill-judge.js';
import type { Mark } from './readiness-progress.js';
import { parseProgress } from './readiness-tracker.js';
import { ReadinessStore } from './readiness-store.js';
import type { ReadinessDrillsTable } from './readiness-tables.js';

/** What drills need of other families (the workbench's faults, the webhooks family), supplied where services are built. */
export interface DrillSources {
  /** Sandbox mode: drills are refused in production. */
  sandbox: boolean;
  addFault(partnerId: string, rule: Record<string, unknown>): Promise<{ id: string }>;
  /** Removes a rule if it is still there. */
  removeFault(id: string, partnerId: string): Promise<void>;
  endpoint(partnerId: string): Promise<{ verified: boolean; duplicates: boolean; eventTypes: string[] } | undefined>;
  setDuplicates(partnerId: string, on: boolean): Promise<void>;
  sendTestEvent(partnerId: string, type: string): Promise<{ message_id: string }>;
  deliveriesOf(partnerId: string, messageIds: string[]): Promise<Array<{ id: string; message_id: string; attempts: DrillAttempt[] }>>;
  /** Writes the request log's waiting entries, so a grade sees the calls just answered. */
  flushLog(): Promise<void>;
}
/** One attempt at a copy; `at` is pbs time. */
type DrillAttempt = { status_code: number | null; latency_ms: number; at: number };

const { default: DEFAULT_SECONDS, min: MIN_SECONDS, max: MAX_SECONDS } = DRILL_SECONDS;
/** A partner's drills listed, and kept: older finished ones are forgotten as new ones start. */
const LISTED = 50;

type DrillRow = ReadinessDrillsTable;

/**
 * Drills (docs/readiness.md "Drills"): a partner or the operator starts one for an interface; pbs
 * sets up its failures for that partner only (fault rules, or its endpoint's duplicated
 * deliveries), and grades what the partner's client did by the milestone rules within the time
 * box. Graded when read, closed when over (its rules removed, the endpoint's setting restored),
 * also by a scheduled task where tasks run.
 */
export class Drills {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly sources: DrillSources,
    private readonly realNow: () => number = () => performance.timeOrigin + performance.now(),
  ) {}

  private store() {
    return new ReadinessStore(this.database.db);
  }

  async start(partnerId: string, input: { kind: unknown; operation?: unknown; duration_seconds?: unknown }, startedBy: string) {
    if (!this.sources.sandbox) throw apiError('AUTHORIZATION_ERROR', 'Drills are for the sandbox; this server runs in production.');
    const kind = input.kind;
    if (!isOneOf(DRILL_KINDS, kind)) throw apiError('VALIDATION_ERROR', `kind must be one of ${DRILL_KINDS.join(', ')}`, { field: 'kind' });
    const spec = DRILLS[kind];
    const operation = input.operation ?? spec.defaultOperation ?? null;
    if (operation !== null && (typeof operation !== 'string' || !spec.operations?.includes(operation)))
      throw apiError('VALIDATION_ERROR', `operation must be one of ${(spec.operations ?? []).join(', ') || 'none for this drill'}`, {
        field: 'operation',
      });
    const seconds = input.duration_seconds ?? DEFAULT_SECONDS;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS)
      throw apiError('VALIDATION_ERROR', `duration_seconds must be a whole number from ${MIN_SECONDS} to ${MAX_SECONDS}`, {
        field: 'duration_seconds',
      });
    if (await this.store().runningDrill(partnerId, kind))
      throw apiError('CONFLICT', `A ${kind} drill is already running for this partner; stop it or wait for it to end.`);
    const endpoint = kind === 'webhook_duplicates' ? await this.sources.endpoint(partnerId) : undefined;
    if (kind === 'webhook_duplicates' && (!endpoint?.verified || endpoint.eventTypes.length === 0))
      throw apiError('CONFLICT', 'The webhook drill needs a verified endpoint that receives at least one event type.');

    await this.sources.flushLog();
    const progress = parseProgress(await this.store().progressOf(partnerId));
    const row: DrillRow = {
      id: newId(),
      partner_id: partnerId,
      kind,
      operation,
      started_by: startedBy,
      started_at: Math.floor(this.clock.now()),
      ends_at: Math.floor(this.realNow() + seconds * 1000),
      state: 'running',
      snapshot: JSON.stringify(snapshotOf(spec, progress)),
      result: null,
      fault_ids: '[]',
      message_ids: '[]',
      restore_duplicates: endpoint ? (endpoint.duplicates ? 1 : 0) : null,
    };
    // Said before the first transaction (the fault rule's), which writes an operator's audit record.
    noteAudit({ target: { kind: 'partner', id: partnerId }, partnerId, after: { kind, operation, duration_seconds: seconds } });
    // Its failures first: a drill recorded without them would grade a partner on nothing.
    const faultIds: string[] = [];
    if (spec.fault && operation)
      faultIds.push((await this.sources.addFault(partnerId, { operation, ...spec.fault, expires_in_seconds: seconds })).id);
    const messageIds: string[] = [];
    if (endpoint) {
      await this.sources.setDuplicates(partnerId, true);
      // Each of the endpoint's event types in turn: every handler of the receiver meets a duplicate.
      for (let i = 0; i < WEBHOOK_DRILL_EVENTS; i++) {
        const type = endpoint.eventTypes[i % endpoint.eventTypes.length];
        messageIds.push((await this.sources.sendTestEvent(partnerId, type)).message_id);
      }
    }
    row.fault_ids = JSON.stringify(faultIds);
    row.message_ids = JSON.stringify(messageIds);
    await this.database.transact((trx) => new ReadinessStore(trx).insertDrill(row, LISTED));
    return this.view(row);
  }

  async list(partnerId: string) {
    const rows = await this.store().drillsOf(partnerId, LISTED);
    return { drills: await Promise.all(rows.map((row) => this.view(row))) };
  }

  /** One drill, graded now; only `partnerId`'s when given (another's is not found). */
  async get(id: string, partnerId?: string) {
    const row = await this.store().drill(id);
    if (!row || (partnerId !== undefined && row.partner_id !== partnerId)) throw apiError('NOT_FOUND', `No drill ${id}`);
    return this.view(row);
  }

  /** Ends a running drill now, graded as it stands (its rules removed). */
  async stop(id: string, partnerId?: string) {
    const row = await this.store().drill(id);
    if (!row || (partnerId !== undefined && row.partner_id !== partnerId)) throw apiError('NOT_FOUND', `No drill ${id}`);
    if (row.state === 'running') await this.close(row, true);
    return this.get(id);
  }

  /** Closes drills whose time is up (the scheduled task; reads close them too). */
  async closeEnded(): Promise<number> {
    const rows = await this.store().endedDrills(this.realNow(), 100);
    for (const row of rows) await this.close(row, true);
    return rows.length;
  }

  private async view(row: DrillRow) {
    let current = row;
    if (row.state === 'running') current = (await this.close(row, this.realNow() >= row.ends_at)) ?? row;
    const spec = specOf(current.kind);
    const grade = current.result ? gradeOf(current.result) : await this.grade(current, false);
    return {
      id: current.id,
      partner_id: current.partner_id,
      kind: current.kind,
      title: spec.title,
      description: spec.description,
      interface: spec.interface,
      operation: current.operation,
      started_by: current.started_by,
      started_at: toIso(current.started_at),
      ends_at: toIso(current.ends_at),
      state: grade.state,
      milestones: grade.milestones,
    };
  }

  private async grade(row: DrillRow, ended: boolean) {
    const spec = specOf(row.kind);
    await this.sources.flushLog();
    const progress = parseProgress(await this.store().progressOf(row.partner_id));
    const messageIds = stringsOf(row.message_ids);
    let deliveries: DrillDeliveries | undefined;
    if (messageIds.length > 0) {
      const copies = await this.sources.deliveriesOf(row.partner_id, messageIds);
      deliveries = {
        now: this.clock.now(),
        messages: messageIds.map((messageId) => ({ messageId, copies: copies.filter((c) => c.message_id === messageId) })),
      };
    }
    return gradeDrill(spec, snapshotFrom(row.snapshot), progress, deliveries, ended);
  }

  /** Grades a running drill; when it is over (or `ended`), closes it: result kept, rules removed, endpoint restored. */
  private async close(row: DrillRow, ended: boolean): Promise<DrillRow | undefined> {
    const grade = await this.grade(row, ended);
    if (grade.state === 'running') return undefined;
    const result = JSON.stringify(grade);
    if (!(await this.store().closeDrill(row.id, grade.state, result))) return this.store().drill(row.id);
    for (const id of stringsOf(row.fault_ids)) await this.sources.removeFault(id, row.partner_id);
    if (row.restore_duplicates === 0) await this.sources.setDuplicates(row.partner_id, false);
    return { ...row, state: grade.state, result };
  }
}

/** A stored drill's kind (written from DRILL_KINDS; a row of an unknown kind is a fault of this server). */
function specOf(kind: string): DrillKindSpec {
  if (!isOneOf(DRILL_KINDS, kind)) throw new Error(`readiness_drills holds an unknown kind ${kind}`);
  return DRILLS[kind];
}

function stringsOf(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Columns this class wrote from a DrillGrade and a DrillSnapshot. */
function gradeOf(text: string): DrillGrade {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && 'state' in value && 'milestones' in value && Array.isArray(value.milestones)
    ? { state: DRILL_STATES.find((s) => s === value.state) ?? 'incomplete', milestones: value.milestones.filter(isOutcome) }
    : { state: 'incomplete', milestones: [] };
}

function isOutcome(value: unknown): value is DrillGrade['milestones'][number] {
  return typeof value === 'object' && value !== null && 'id' in value && 'outcome' in value;
}

function snapshotFrom(text: string): DrillSnapshot {
  const value: unknown = JSON.parse(text);
  const marks = (key: 'proven' | 'refuted'): Record<string, Mark | null> =>
    typeof value === 'object' && value !== null && key in value ? Object.assign({}, Reflect.get(value, key)) : {};
  return { proven: marks('proven'), refuted: marks('refuted') };
}
