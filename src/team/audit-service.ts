import { Readable } from 'node:stream';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { MAX_AUDIT_PAGE, purgeAudit, searchAudit, type AuditFilter, type AuditRecord } from '../platform/audit/audit-store.js';

/** The search and export filters, as the API's query string names them. */
export interface AuditQuery {
  actor?: string;
  partner_id?: string;
  business_id?: string;
  action?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

const DAY_MS = 86_400_000;

/**
 * Reading the audit trail (written by the operator guard and the services, platform/audit): pages
 * newest first, an export oldest first as JSON lines, a tail that follows new records, and the
 * retention purge. Nothing here changes a record.
 */
export class AuditService {
  constructor(
    private readonly database: Database,
    private readonly retentionDays: number,
    private readonly wallNow: () => number,
  ) {}

  async page(query: AuditQuery): Promise<{ records: AuditRecord[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50;
    const records = await searchAudit(this.database.db, { ...filterOf(query), limit, before: decodeCursor(query.cursor) });
    const last = records.at(-1);
    return { records, next_cursor: records.length === limit && last ? encodeCursor(last) : null };
  }

  /** Records after `after` (oldest first): a tail's next records, or an export's next page. */
  async after(query: AuditQuery, after: { at: number; id: string } | undefined, limit = MAX_AUDIT_PAGE): Promise<AuditRecord[]> {
    return searchAudit(this.database.db, { ...filterOf(query), limit, after: after ?? { at: -1, id: '' } });
  }

  /** Every record the filters select, oldest first, one JSON line each, read a page at a time. */
  exportLines(query: AuditQuery): Readable {
    return Readable.from(exportPages(this, query, query.limit ?? 100_000));
  }

  /** Records older than the retention go (a schedule runs it). */
  purge(): Promise<number> {
    return purgeAudit(this.database.db, this.wallNow() - this.retentionDays * DAY_MS);
  }
}

/** The pages of an export, oldest first, each as JSON lines, until `cap` records. */
async function* exportPages(audit: AuditService, query: AuditQuery, cap: number): AsyncGenerator<string> {
  let sent = 0;
  let after: { at: number; id: string } | undefined;
  while (sent < cap) {
    const records = await audit.after(query, after, Math.min(MAX_AUDIT_PAGE, cap - sent));
    if (records.length === 0) return;
    sent += records.length;
    const last = records[records.length - 1];
    after = { at: Date.parse(last.at), id: last.id };
    yield records.map((record) => `${JSON.stringify(record)}\n`).join('');
  }
}

function filterOf(query: AuditQuery): Omit<AuditFilter, 'limit'> {
  return {
    actor: query.actor || undefined,
    partnerId: query.partner_id || undefined,
    businessId: query.business_id || undefined,
    action: query.action || undefined,
    since: timeOf(query.since, 'since'),
    until: timeOf(query.until, 'until'),
  };
}

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw apiError('VALIDATION_ERROR', `${field} must be a date-time (ISO 8601).`, { field });
  return ms;
}

export function encodeCursor(record: AuditRecord): string {
  return `${Date.parse(record.at)}.${record.id}`;
}

export function decodeCursor(cursor: string | undefined): { at: number; id: string } | undefined {
  if (!cursor) return undefined;
  const match = /^(\d{1,16})\.([A-Za-z0-9]{1,40})$/.exec(cursor);
  if (!match) throw apiError('VALIDATION_ERROR', 'cursor is not one this API gave.', { field: 'cursor' });
  return { at: Number(match[1]), id: match[2] };
}
