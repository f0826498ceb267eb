import { sql } from 'kysely';
import type { DbOrTx } from '../db/database.js';
import { keysetAfter, keysetBefore } from '../db/keyset.js';
import type { OperatorAuditTable } from './audit-tables.js';

/** A record of the audit trail as the API, the console and `pbs audit` show it. */
export interface AuditRecord {
  id: string;
  at: string;
  actor: { via: string; account_id: string | null; token_id: string | null; name: string };
  address: string;
  action: string;
  target: { kind: string; id: string } | null;
  partner_id: string | null;
  business_id: string | null;
  details: unknown;
}

export interface AuditFilter {
  /** An account id, or (part of) the name the record was made under. */
  actor?: string;
  partnerId?: string;
  businessId?: string;
  /** Part of the action (`disable`, `POST /admin/v1/partners`). */
  action?: string;
  since?: number;
  until?: number;
  limit: number;
  /** Newest first: the records before this one. */
  before?: { at: number; id: string };
  /** Oldest first (a tail or an export): the records after this one. */
  after?: { at: number; id: string };
}

/** Longest page of the trail one request reads. */
export const MAX_AUDIT_PAGE = 500;

/** Reads of the trail (no route changes it). Each search walks an index newest first. */
export async function searchAudit(db: DbOrTx, filter: AuditFilter): Promise<AuditRecord[]> {
  let query = db.selectFrom('operator_audit').selectAll();
  const { actor, action } = filter;
  if (actor)
    query = query.where((eb) =>
      eb.or([eb('actor_account_id', '=', actor), eb(eb.fn<string>('lower', ['actor_name']), 'like', containing(actor))]),
    );
  if (filter.partnerId) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.businessId) query = query.where('business_id', '=', filter.businessId);
  if (action) query = query.where((eb) => eb(eb.fn<string>('lower', ['action']), 'like', containing(action)));
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('at', '<', filter.until);
  const columns = { sequence: 'at', id: 'id' };
  if (filter.after) {
    query = keysetAfter(query, columns, filter.after.at, { seq: filter.after.at, id: filter.after.id });
    query = query.orderBy('at', 'asc').orderBy('id', 'asc');
  } else {
    if (filter.before) query = keysetBefore(query, columns, { seq: filter.before.at, id: filter.before.id });
    query = query.orderBy('at', 'desc').orderBy('id', 'desc');
  }
  const rows = await query.limit(Math.min(filter.limit, MAX_AUDIT_PAGE)).execute();
  return rows.map(recordOf);
}

/** Removes records older than `before` (the retention), a batch at a time; answers how many went. */
export async function purgeAudit(db: DbOrTx, before: number): Promise<number> {
  const result = await db.deleteFrom('operator_audit').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function recordOf(row: OperatorAuditTable): AuditRecord {
  return {
    id: row.id,
    at: new Date(Number(row.at)).toISOString(),
    actor: { via: row.actor_via, account_id: row.actor_account_id, token_id: row.actor_token_id, name: row.actor_name },
    address: row.address,
    action: row.action,
    target: row.target_kind && row.target_id ? { kind: row.target_kind, id: row.target_id } : null,
    partner_id: row.partner_id,
    business_id: row.business_id,
    details: JSON.parse(row.details),
  };
}

/** A LIKE pattern for text containing `part`, in any case, its wildcards taken as themselves. */
function containing(part: string) {
  const escaped = part.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<string>`${`%${escaped}%`} escape '\\'`;
}
