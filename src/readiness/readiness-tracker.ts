import type { DbOrTx, Dialect } from '../platform/db/database.js';
import { RawStatement } from '../platform/db/raw.js';
export { ensureReadinessTable, READINESS_TABLE_IN_LOG_FILE } from './readiness-tables.js';
import { newProgress, observe, type ObservedCall, type Progress } from './readiness-judge.js';

/**
 * Keeps every partner's readiness as its calls are written to the request log (docs/readiness.md
 * "How it is kept"): for each batch, the progress of the partners in it is read (locked on
 * PostgreSQL, where several processes write batches), the batch's calls folded in, and the
 * progress written back, in the batch's own transaction. So a report reads one row a partner,
 * never the log, and the progress survives restarts and is shared by every process.
 *
 * The SQL is here once; the writer thread runs it on its own connection (request-log-worker.ts),
 * the main thread through `trackOn`.
 */
export const TRACK_SQL = {
  sqliteLoad: 'select partner_id, progress from readiness_progress where partner_id in (select value from json_each(?))',
  /** PostgreSQL: a row for every partner of the batch, so each can be locked (a first batch too). */
  postgresSeed: `insert into readiness_progress (partner_id, progress, updated_at) select unnest(?::text[]), '', 0 on conflict (partner_id) do nothing`,
  /** In one order, so two processes' batches never wait for each other in a cycle. */
  postgresLoad: 'select partner_id, progress from readiness_progress where partner_id = any(?::text[]) order by partner_id for update',
  save: `insert into readiness_progress (partner_id, progress, updated_at) values (?, ?, ?)
    on conflict (partner_id) do update set progress = excluded.progress, updated_at = excluded.updated_at`,
} as const;

export interface StoredProgress {
  partner_id: string;
  progress: string;
}

/** Rows the load statement answered, as StoredProgress (a driver types them unknown). */
export function storedRows(rows: readonly unknown[]): StoredProgress[] {
  return rows.filter(
    (row): row is StoredProgress =>
      typeof row === 'object' &&
      row !== null &&
      'partner_id' in row &&
      typeof row.partner_id === 'string' &&
      'progress' in row &&
      typeof row.progress === 'string',
  );
}

/** The partners whose calls are in the batch (unauthenticated calls are no partner's). */
export function partnersOf(calls: readonly ObservedCall[]): string[] {
  const ids = new Set<string>();
  for (const call of calls) if (call.partnerId) ids.add(call.partnerId);
  return [...ids];
}

/** The parameters of the load statement: SQLite takes a JSON array, PostgreSQL an array. */
export function loadParameter(dialect: Dialect, partners: string[]): unknown {
  return dialect === 'sqlite' ? JSON.stringify(partners) : partners;
}

/**
 * Each partner's progress after the batch's calls, as the `save` statement's parameters. A
 * partner's progress that cannot be read (a row written by a newer pbs) starts again rather than
 * failing the batch: the request log's entries matter more.
 */
export function progressAfter(stored: readonly StoredProgress[], calls: readonly ObservedCall[]): unknown[][] {
  const byPartner = new Map<string, Progress>();
  for (const row of stored) {
    const progress = parseProgress(row.progress);
    if (progress) byPartner.set(row.partner_id, progress);
  }
  const touched = new Map<string, number>();
  for (const call of calls) {
    if (!call.partnerId) continue;
    let progress = byPartner.get(call.partnerId);
    if (!progress) byPartner.set(call.partnerId, (progress = newProgress(0)));
    observe(progress, call);
    touched.set(call.partnerId, call.at);
  }
  return [...touched].map(([partner, at]) => [partner, JSON.stringify(byPartner.get(partner)), Math.floor(at)]);
}

export function parseProgress(text: string | undefined): Progress | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    // Written by progressAfter from a Progress; a row of another shape starts again.
    return isProgress(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isProgress(value: unknown): value is Progress {
  return typeof value === 'object' && value !== null && 'proven' in value && 'refuted' in value && 'holds' in value;
}

const LOAD = {
  sqlite: new RawStatement<StoredProgress>(TRACK_SQL.sqliteLoad),
  postgres: new RawStatement<StoredProgress>(TRACK_SQL.postgresLoad),
};
const SEED = new RawStatement(TRACK_SQL.postgresSeed);
const SAVE = new RawStatement(TRACK_SQL.save);

/** Folds a batch's calls into their partners' progress, on `trx` (the batch's transaction, on the main thread). */
export async function trackOn(trx: DbOrTx, dialect: Dialect, calls: readonly ObservedCall[]): Promise<void> {
  const partners = partnersOf(calls);
  if (partners.length === 0) return;
  if (dialect === 'postgres') await SEED.run(trx, dialect, [partners]);
  const stored = await LOAD[dialect].rows(trx, dialect, [loadParameter(dialect, partners)]);
  for (const parameters of progressAfter(stored, calls)) await SAVE.run(trx, dialect, parameters);
}
