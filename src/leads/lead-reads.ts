import { apiError } from '../platform/errors.js';
import { single } from '../platform/query.js';
import { cursorSeq } from './lead-rules.js';
import type { LeadStore, Lead, LeadEvent } from './lead-store.js';
import { eventJson } from './lead-views.js';

/** Get Lead Events' `limit`: 1 to 20, default 20 (docs/contract/leads.md §12.4). */
export const EVENTS_LIMIT = { min: 1, max: 20, default: 20 };
/** Get Lead IDs for a business's `limit`: 1 to 20, default 20 (§12.8). */
export const LEAD_IDS_LIMIT = { min: 1, max: 20, default: 20 };

/** A `limit` query value in its range, or 400 VALIDATION_ERROR naming it. */
function limitOf(value: unknown, range: { min: number; max: number; default: number }): number {
  const raw = single(value);
  if (raw === undefined || raw === '') return range.default;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < range.min || n > range.max)
    throw apiError('VALIDATION_ERROR', `limit must be an integer from ${range.min} to ${range.max}`, { field: 'limit' });
  return n;
}

/**
 * A page of a lead's events as Get Lead Events answers it (§12.4): oldest first; without a cursor
 * the latest `limit`, with `newer_than_cursor` the `limit` directly after that event, with
 * `older_than_cursor` the `limit` directly before it. Events sharing an id (a text and its
 * attachment) count once toward the limit and are never split across pages.
 */
export async function eventsPage(store: LeadStore, lead: Lead, query: Record<string, unknown>) {
  const limit = limitOf(query.limit, EVENTS_LIMIT);
  const newer = single(query.newer_than_cursor);
  const older = single(query.older_than_cursor);
  if (newer !== undefined && older !== undefined)
    throw apiError('VALIDATION_ERROR', 'Send newer_than_cursor or older_than_cursor, not both', { field: 'newer_than_cursor' });
  const cursor = newer ?? older;
  const field = newer !== undefined ? 'newer_than_cursor' : 'older_than_cursor';
  const at = cursor === undefined ? undefined : cursorSeq(lead.id, cursor);
  if (cursor !== undefined && (at === undefined || at > Number(lead.last_seq)))
    throw apiError('VALIDATION_ERROR', `${field} is not a cursor of this lead's events`, { field });
  // Two events at most share an id, so twice the limit (and one more, to finish the last group) is enough.
  const rows = 2 * limit + 1;
  const events =
    newer !== undefined
      ? await store.eventsAfter(lead.id, at ?? 0, rows)
      : await store.eventsBefore(lead.id, at ?? Number(lead.last_seq) + 1, rows);
  return { events: takeGroups(events, limit, newer !== undefined ? 'first' : 'last').map(eventJson) };
}

/** The first (or last) `groups` runs of events sharing an id, in the order given (oldest first). */
export function takeGroups(events: LeadEvent[], groups: number, end: 'first' | 'last'): LeadEvent[] {
  const ordered = end === 'first' ? events : [...events].reverse();
  const taken: LeadEvent[] = [];
  let count = 0;
  for (const event of ordered) {
    if (taken.length === 0 || taken[taken.length - 1].id !== event.id) {
      if (count === groups) break;
      count++;
    }
    taken.push(event);
  }
  return end === 'first' ? taken : taken.reverse();
}

/**
 * Get Lead IDs for a business (§12.8): newest first, `limit` of them, with `has_more`; within
 * `created_after` / `created_before` (inclusive), then after `after_lead_id` in that order.
 */
export async function leadIdsPage(store: LeadStore, businessId: string, query: Record<string, unknown>) {
  const limit = limitOf(query.limit, LEAD_IDS_LIMIT);
  const time = (name: string) => {
    const raw = single(query[name]);
    if (raw === undefined || raw === '') return undefined;
    const ms = Date.parse(raw);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(raw) || Number.isNaN(ms))
      throw apiError('VALIDATION_ERROR', `${name} must be an ISO 8601 time with its offset`, { field: name });
    return ms;
  };
  const window = { after: time('created_after'), before: time('created_before') };
  const afterId = single(query.after_lead_id);
  let from: { time: number; id: string } | undefined;
  if (afterId !== undefined && afterId !== '') {
    const anchor = await store.lead(afterId);
    if (!anchor || anchor.business_id !== businessId)
      throw apiError('VALIDATION_ERROR', `after_lead_id ${afterId} is not a lead of this business`, { field: 'after_lead_id' });
    from = { time: Number(anchor.time_created), id: anchor.id };
  }
  const ids = await store.leadIdsNewestFirst(businessId, { ...window, from }, limit + 1);
  return { lead_ids: ids.slice(0, limit), has_more: ids.length > limit };
}
