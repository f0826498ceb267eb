import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, DbOrTx, Tx } from '../db/database.js';
import type { Operator } from '../auth/operator.js';
import { newId } from '../ids.js';
import { isSecretKey } from '../secret-fields.js';
import { isRecord } from '../values.js';
import type { OperatorAuditTable } from './audit-tables.js';

/**
 * The audit trail of operator actions (docs/security.md "Audit trail"). The operator guard opens a
 * draft for every request that may change something; the first transaction the request runs
 * writes the draft's row in that same transaction, so a record exists if and only if its change
 * committed. A change made without a transaction (a sign-in, the sandbox clock) is recorded as its
 * answer goes out. Services add what only they know (the target they created, before → after)
 * with `noteAudit`.
 */
export interface AuditDraft {
  at: number;
  operator: Operator;
  address: string;
  action: string;
  target?: { kind: string; id: string };
  partnerId?: string;
  businessId?: string;
  details: Record<string, unknown>;
  /** Written (or being written) in a transaction of the request. */
  written: boolean;
  /** A read that may reveal a secret: recorded only when the route says it did (`noteAudit({ revealed })`). */
  onlyIfRevealed?: boolean;
  /**
   * The request has answered. A timer armed during it (a background loop woken) carries its
   * context on; from then on that context is no operator's change.
   */
  closed?: boolean;
}

const current = new AsyncLocalStorage<AuditDraft>();

/**
 * The drafts of audited scopes open now (operator requests not yet answered, a CLI command). On
 * Node 20 an enabled AsyncLocalStorage hooks every promise and tick of the process, a partner's
 * requests included (a few µs each, docs/benchmarks.md), so the storage is enabled only while an
 * operator change is in flight: closing the last scope disables it, and the next `runAudited`
 * enables it again. A context that outlives its scope (a timer armed during the request) holds a
 * closed draft, which nothing writes to, so what it sees once the storage is enabled again is harmless.
 */
const openScopes = new Set<AuditDraft>();

/** Route parameters that name what an operation acts on, in the order a target is chosen from. */
const TARGET_PARAMS = [
  'credential_id',
  'token_id',
  'account_id',
  'fault_id',
  'delivery_id',
  'task_id',
  'job_id',
  'visit_id',
  'reservation_id',
  'review_id',
  'lead_id',
  'user_id',
  'program_id',
  'code',
  'category',
  'interface',
  'week',
  'business_id',
  'partner_id',
];

/** Longest JSON of a request's fields kept in a record; past it, only the field names. */
const MAX_DETAILS_CHARS = 4000;

export function auditDraft(
  operator: Operator,
  request: { ip: string; method: string; url: string; routeUrl: string; params: unknown; body: unknown },
  wallNow: number,
): AuditDraft {
  const params: Record<string, string> = {};
  if (isRecord(request.params)) for (const [k, v] of Object.entries(request.params)) if (typeof v === 'string') params[k] = v;
  const targetParam = TARGET_PARAMS.find((name) => params[name] !== undefined);
  const details: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) details.params = params;
  const query = request.url.indexOf('?');
  if (query >= 0) details.query = redacted(Object.fromEntries(new URLSearchParams(request.url.slice(query + 1))));
  if (isRecord(request.body) || Array.isArray(request.body)) {
    const fields = redacted(request.body);
    const json = JSON.stringify(fields);
    details.fields = json.length <= MAX_DETAILS_CHARS ? fields : { omitted: `${json.length} characters`, names: namesOf(request.body) };
  }
  return {
    // Whole milliseconds: the column is an integer (a wall clock may answer fractions).
    at: Math.floor(wallNow),
    operator,
    address: request.ip,
    action: `${request.method} ${request.routeUrl}`,
    target: targetParam ? { kind: targetParam.replace(/_id$/, ''), id: params[targetParam] } : undefined,
    partnerId: params.partner_id,
    businessId: params.business_id,
    details,
    written: false,
  };
}

/** Runs the rest of an operator request (or a CLI command) with its draft, until `closeAudited`. */
export function runAudited<T>(draft: AuditDraft, next: () => T): T {
  openScopes.add(draft);
  return current.run(draft, next);
}

/** The draft's request has answered (or its connection is gone): nothing more it does is recorded. */
export function closeAudited(draft: AuditDraft): void {
  draft.closed = true;
  if (openScopes.delete(draft) && openScopes.size === 0) current.disable();
}

/** How many audited scopes are open: while any is, the storage's hooks are on (tests). */
export function auditScopesOpen(): number {
  return openScopes.size;
}

/** What a service knows of the operator action it carries out: its target, before → after. */
export function noteAudit(note: {
  target?: { kind: string; id: string };
  partnerId?: string;
  businessId?: string;
  before?: unknown;
  after?: unknown;
  /** A secret shown to the operator (what it is, never its value). */
  revealed?: string;
}): void {
  const draft = current.getStore();
  if (!draft || draft.closed) return;
  if (note.target) draft.target = note.target;
  if (note.partnerId) draft.partnerId = note.partnerId;
  if (note.businessId) draft.businessId = note.businessId;
  if (note.before !== undefined) draft.details.before = redacted(note.before);
  if (note.after !== undefined) draft.details.after = redacted(note.after);
  if (note.revealed !== undefined) draft.details.revealed = note.revealed;
}

/** Whether a draft is to be written when its request answers without having written it. */
export function auditDue(draft: AuditDraft): boolean {
  return !draft.written && (!draft.onlyIfRevealed || draft.details.revealed !== undefined);
}

/**
 * `transact` that writes an operator request's draft in the request's first transaction. Every
 * transaction's work runs in the context of the request that asked for it (on SQLite a batch of
 * transactions commits together, from whichever request started it), so `noteAudit` reaches the
 * right draft, and a partner's change never reaches an operator's.
 */
export function auditingTransact(transact: Database['transact']): Database['transact'] {
  return <T>(work: (trx: Tx) => Promise<T>): Promise<T> => {
    const draft = current.getStore();
    if (!draft || draft.closed) return transact((trx) => current.exit(() => work(trx)));
    if (draft.written) return transact((trx) => current.run(draft, () => work(trx)));
    draft.written = true;
    return transact((trx) =>
      current.run(draft, async () => {
        const result = await work(trx);
        await writeAudit(trx, draft, 'with the change');
        return result;
      }),
    ).catch((error: unknown) => {
      draft.written = false;
      throw error;
    });
  };
}

/**
 * Writes a draft's record. `recorded` says whether it committed with the change (its transaction)
 * or after it (a change that ran no transaction of pbs's: a sign-in, the sandbox clock, a secret shown).
 */
export async function writeAudit(db: DbOrTx, draft: AuditDraft, recorded: 'with the change' | 'after the change'): Promise<void> {
  const row: OperatorAuditTable = {
    id: newId(),
    at: draft.at,
    actor_via: draft.operator.via,
    actor_account_id: draft.operator.accountId,
    actor_token_id: draft.operator.tokenId,
    actor_name: draft.operator.name,
    address: draft.address,
    action: draft.action,
    target_kind: draft.target?.kind ?? null,
    target_id: draft.target?.id ?? null,
    partner_id: draft.partnerId ?? (draft.target?.kind === 'partner' ? draft.target.id : null),
    business_id: draft.businessId ?? (draft.target?.kind === 'business' ? draft.target.id : null),
    details: JSON.stringify({ ...draft.details, recorded }),
  };
  await db.insertInto('operator_audit').values(row).execute();
}

/** A value with every secret field's value replaced, however deep (never a secret in the trail). */
export function redacted(value: unknown, depth = 0): unknown {
  if (depth > 8) return '…';
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redacted(item, depth + 1));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = isSecretKey(key) ? '[secret]' : redacted(field, depth + 1);
  return out;
}

function namesOf(body: unknown): string[] {
  return isRecord(body) ? Object.keys(body).slice(0, 50) : [];
}
