import { toIso, type Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError, codeForStatus, isErrorCode } from '../platform/errors.js';
import type { FaultInjector, InjectedFault } from '../platform/http/fault-injection.js';
import { newId } from '../platform/ids.js';
import { isOneOf } from '../platform/query.js';
import { isRecord } from '../platform/values.js';
import { FaultStore, type FaultRule } from './fault-store.js';

/** How long a process trusts its copy of the live rules (another process's change shows within it). */
const RULES_FRESH_MS = 1000;
const ACTIONS = ['error', 'latency', 'drop'] as const;

/**
 * Faults on demand (docs/faults.md): a partner's rules make matching calls fail, slow down or
 * lose their connection, so its client's handling of failures can be tried against pbs. Sandbox
 * only. Each process keeps the live rules in memory, read again at most every second; a counted
 * rule's uses are taken in the database, so several processes together act on it that many times.
 */
export class Faults implements FaultInjector {
  private rules = new Map<string, FaultRule[]>();
  private readAt = -Infinity;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: { sandbox: boolean; random?: () => number },
  ) {}

  private store() {
    return new FaultStore(this.database.db);
  }

  take(partnerId: string, operation: string, businessId: string | undefined): Promise<InjectedFault | undefined> | undefined {
    if (performance.now() - this.readAt > RULES_FRESH_MS) return this.reread().then(() => this.match(partnerId, operation, businessId));
    if (!this.rules.has(partnerId)) return undefined;
    return this.match(partnerId, operation, businessId);
  }

  private async match(partnerId: string, operation: string, businessId: string | undefined): Promise<InjectedFault | undefined> {
    const now = this.clock.now();
    const random = this.options.random ?? Math.random;
    for (const rule of this.rules.get(partnerId) ?? []) {
      if (rule.operation !== operation || rule.expires_at <= now) continue;
      if (rule.business_id !== null && rule.business_id !== businessId) continue;
      if (rule.percent < 100 && random() * 100 >= rule.percent) continue;
      if (rule.remaining !== null && !(await this.store().takeOne(rule.id))) continue;
      return { ruleId: rule.id, action: actionOf(rule) };
    }
    return undefined;
  }

  private reread(): Promise<void> {
    this.reading ??= this.store()
      .live(this.clock.now())
      .then((rows) => {
        const rules = new Map<string, FaultRule[]>();
        for (const row of rows) rules.set(row.partner_id, [...(rules.get(row.partner_id) ?? []), row]);
        this.rules = rules;
        this.readAt = performance.now();
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
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
    await this.store().insert(rule);
    this.readAt = -Infinity;
    return ruleView(rule);
  }

  async list(partnerId?: string) {
    return { faults: (await this.store().live(this.clock.now(), partnerId)).map(ruleView) };
  }

  async remove(id: string, partnerId?: string): Promise<void> {
    if (!(await this.store().remove(id, partnerId))) throw apiError('NOT_FOUND', `No fault rule ${id}`);
    this.readAt = -Infinity;
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
