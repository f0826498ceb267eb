import { toIso, type Clock } from '../platform/clock.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { ReadCache } from '../platform/read-cache.js';
import { apiError, codeForStatus, isErrorCode } from '../platform/errors.js';
import type { FaultInjector, InjectedFault } from '../platform/http/fault-injection.js';
import { newId } from '../platform/ids.js';
import { isOneOf } from '../platform/query.js';
import { groupedBy, isRecord } from '../platform/values.js';
import { FaultStore, type FaultRule } from './fault-store.js';

/** How long a process trusts its copy of a partner's rules (another process's change shows within it). */
const RULES_FRESH_MS = 1000;
/**
 * Most live rules (unexpired, with calls left) one partner may have: every process its calls
 * reach reads them. Past it a new rule is refused (403 QUOTA_EXCEEDED); docs/faults.md, and
 * docs/security.md "Limits".
 */
export const MAX_LIVE_RULES = 100;
/** Partners whose rules a process keeps at once (past it, all are read again). */
const PARTNERS_KEPT = 10_000;
const ACTIONS = ['error', 'latency', 'drop'] as const;
/** The change-feed topic of fault rules (key: the partner). */
const FAULTS_TOPIC = 'faults';
/** Most rules one listing answers (the operator's, of every partner). */
export const MAX_LISTED = 1000;

/** A partner's live rules by the operation they match. */
type RulesByOperation = ReadonlyMap<string, readonly FaultRule[]>;
const NO_RULES: RulesByOperation = new Map();

/**
 * Faults on demand (docs/faults.md): a partner's rules make matching calls fail, slow down or
 * lose their connection, so its client's handling of failures can be tried against pbs. Sandbox
 * only. Each process keeps a partner's live rules, by operation, from the partner's first call
 * for at most a second (a change of this process or, through the change feed, of another forgets
 * them at once); reading them is one indexed query of at most MAX_LIVE_RULES rows, so no
 * partner's rules cost another partner's calls anything. A counted rule's uses are taken in the
 * database, so several processes together act on it that many times.
 */
export class Faults implements FaultInjector {
  private readonly kept: ReadCache<RulesByOperation>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly changes: ChangeFeed,
    private readonly options: { sandbox: boolean; random?: () => number },
  ) {
    this.kept = new ReadCache(changes, FAULTS_TOPIC, { ttlMs: RULES_FRESH_MS, maxEntries: PARTNERS_KEPT });
  }

  private store(db: DbOrTx = this.database.db) {
    return new FaultStore(db);
  }

  take(partnerId: string, operation: string, businessId: string | undefined): Promise<InjectedFault | undefined> | undefined {
    const rules = this.kept.peek(partnerId, '');
    if (rules === undefined)
      return this.kept.get(partnerId, '', () => this.load(partnerId)).then((loaded) => this.match(loaded.get(operation), businessId));
    const matching = rules.get(operation);
    return matching === undefined ? undefined : this.match(matching, businessId);
  }

  private async load(partnerId: string): Promise<RulesByOperation> {
    const rows = await this.store().live(this.clock.now(), { partnerId, limit: MAX_LIVE_RULES });
    return rows.length === 0 ? NO_RULES : groupedBy(rows, (row) => row.operation);
  }

  private async match(rules: readonly FaultRule[] | undefined, businessId: string | undefined): Promise<InjectedFault | undefined> {
    if (rules === undefined) return undefined;
    const now = this.clock.now();
    const random = this.options.random ?? Math.random;
    for (const rule of rules) {
      if (rule.expires_at <= now) continue;
      if (rule.business_id !== null && rule.business_id !== businessId) continue;
      if (rule.percent < 100 && random() * 100 >= rule.percent) continue;
      if (rule.remaining !== null && !(await this.store().takeOne(rule.id))) continue;
      return { ruleId: rule.id, action: actionOf(rule) };
    }
    return undefined;
  }

  /** A new rule for the partner, from an operator's or the partner's request body. */
  async add(partnerId: string, body: unknown, isOperation: (operation: string) => boolean) {
    this.refuseOutsideSandbox();
    const input = isRecord(body) ? body : {};
    const operation = input.operation;
    if (typeof operation !== 'string' || !isOperation(operation))
      throw apiError(
        'VALIDATION_ERROR',
        'operation must name a partner operation as /docs lists it, e.g. "POST /v3/bookings/{business_id}/holds"',
        { field: 'operation' },
      );
    const action = input.action ?? 'error';
    if (!isOneOf(ACTIONS, action)) throw apiError('VALIDATION_ERROR', `action must be one of ${ACTIONS.join(', ')}`, { field: 'action' });
    const whole = (field: string, min: number, max: number, fallback: number | null) => {
      const value = input[field] ?? fallback;
      if (value === null) return null;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
        throw apiError('VALIDATION_ERROR', `${field} must be a whole number from ${min} to ${max}`, { field });
      return value;
    };
    const status = action === 'error' ? whole('status', 400, 599, 503) : null;
    const code = input.error_code ?? (status === null ? null : codeForStatus(status));
    if (code !== null && !isErrorCode(code))
      throw apiError('VALIDATION_ERROR', 'error_code must be a code of the error catalogue', { field: 'error_code' });
    const businessId = input.business_id ?? null;
    if (businessId !== null && (typeof businessId !== 'string' || businessId === '' || businessId.length > 200))
      throw apiError('VALIDATION_ERROR', 'business_id must be a business id', { field: 'business_id' });
    const now = this.clock.now();
    const rule: FaultRule = {
      id: newId(),
      partner_id: partnerId,
      operation,
      business_id: businessId,
      action,
      status,
      error_code: action === 'error' ? code : null,
      retry_after_seconds: action === 'error' ? whole('retry_after_seconds', 0, 3600, null) : null,
      latency_ms: action === 'latency' ? whole('latency_ms', 1, 60_000, 1000) : null,
      remaining: whole('count', 1, 1_000_000, null),
      percent: whole('percent', 1, 100, 100) ?? 100,
      created_at: now,
      expires_at: now + (whole('expires_in_seconds', 1, 7 * 86_400, 3600) ?? 3600) * 1000,
    };
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      // Counted under a lock of the partner's rules, so two adds at once cannot both take the last place.
      await store.lockPartner(partnerId, this.database.dialect);
      if ((await store.countLive(now, partnerId)) >= MAX_LIVE_RULES)
        throw apiError(
          'QUOTA_EXCEEDED',
          `A partner may have at most ${MAX_LIVE_RULES} live fault rules; remove some, or wait for them to end, first.`,
        );
      await store.insert(rule);
      await this.changes.publish(trx, FAULTS_TOPIC, partnerId);
    });
    this.kept.forget(partnerId);
    return ruleView(rule);
  }

  /** Live rules, of one partner or (the operator) of all, at most `limit`. */
  async list(partnerId?: string, limit = MAX_LISTED) {
    return { faults: (await this.store().live(this.clock.now(), { partnerId, limit })).map(ruleView) };
  }

  async remove(id: string, partnerId?: string): Promise<void> {
    const removed = await this.database.transact(async (trx) => {
      const owner = await this.store(trx).remove(id, partnerId);
      if (owner !== undefined) await this.changes.publish(trx, FAULTS_TOPIC, owner);
      return owner;
    });
    if (removed === undefined) throw apiError('NOT_FOUND', `No fault rule ${id}`);
    this.kept.forget(removed);
  }

  purgeEnded() {
    return this.store().purgeEnded(this.clock.now());
  }

  private refuseOutsideSandbox(): void {
    if (!this.options.sandbox)
      throw apiError('AUTHORIZATION_ERROR', 'Faults on demand are for the sandbox; this server runs in production.');
  }
}

function actionOf(rule: FaultRule): InjectedFault['action'] {
  if (rule.action === 'latency') return { kind: 'latency', ms: rule.latency_ms ?? 1000 };
  if (rule.action === 'drop') return { kind: 'drop' };
  const code = isErrorCode(rule.error_code) ? rule.error_code : 'SERVICE_UNAVAILABLE';
  return { kind: 'error', status: rule.status ?? 503, code, retryAfterSeconds: rule.retry_after_seconds };
}

function ruleView(rule: FaultRule) {
  return {
    id: rule.id,
    partner_id: rule.partner_id,
    operation: rule.operation,
    business_id: rule.business_id,
    action: rule.action,
    status: rule.status,
    error_code: rule.error_code,
    retry_after_seconds: rule.retry_after_seconds,
    latency_ms: rule.latency_ms,
    remaining: rule.remaining,
    percent: rule.percent,
    expires_at: toIso(Number(rule.expires_at)),
  };
}
