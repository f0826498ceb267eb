import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeGroups } from '../../src/leads/lead-reads.js';
import type { LeadEvent } from '../../src/leads/lead-store.js';
import { ApiError } from '../../src/platform/errors.js';
import { admin, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

/** The reads the Leads API answers with (docs/contract/leads.md §12.4, §12.8), through the service. */
describe.each(dialects)('lead reads on %s', (dialect) => {
  let h: Harness;
  let businessId: string;
  /** The conversation's event ids, oldest first: the first message and eleven more. */
  const ids: string[] = [];
  const leads = () => h.pbs.services.leads.conversations;
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'no error',
      (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code} ${e.details.field ?? ''}`.trim() : String(e)),
    );

  beforeAll(async () => {
    h = await startPbs(dialect);
    businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Paged' }) })).body.id;
    ids.push((await leads().emit(businessId, { lead_id: 'lead-paged' })).lead_event_id!);
    for (let i = 1; i <= 11; i++)
      ids.push((await leads().emit(businessId, { lead_id: 'lead-paged', text: `message ${i}` })).lead_event_id!);
  });
  afterAll(() => h.close());

  it('pages a conversation both ways by opaque cursors, oldest first within a page', async () => {
    const page = async (query: Record<string, string>) => (await leads().eventsPage('lead-paged', query)).events;
    const latest = await page({ limit: '5' });
    expect(latest.map((e) => e.id)).toEqual(ids.slice(7));
    const before = await page({ limit: '5', older_than_cursor: latest[0].cursor });
    expect(before.map((e) => e.id)).toEqual(ids.slice(2, 7));
    const first = await page({ limit: '5', older_than_cursor: before[0].cursor });
    expect(first.map((e) => e.id)).toEqual(ids.slice(0, 2));
    const after = await page({ limit: '3', newer_than_cursor: first[0].cursor });
    expect(after.map((e) => e.id)).toEqual(ids.slice(1, 4));
    expect(await page({ newer_than_cursor: latest[4].cursor })).toEqual([]);
    expect((await page({})).map((e) => e.id)).toEqual(ids.slice(-20));
    expect(new Set([...latest, ...before].map((e) => e.cursor)).size).toBe(10);
  });

  it("refuses a bad limit, both cursors, and another lead's cursor", async () => {
    const other = (await leads().emit(businessId, {})).lead_id;
    const otherCursor = (await leads().eventsPage(other, {})).events[0].cursor;
    const mine = (await leads().eventsPage('lead-paged', { limit: '1' })).events[0].cursor;
    expect(await codeOf(leads().eventsPage('lead-paged', { limit: '0' }))).toBe('400 VALIDATION_ERROR limit');
    expect(await codeOf(leads().eventsPage('lead-paged', { limit: '21' }))).toBe('400 VALIDATION_ERROR limit');
    expect(await codeOf(leads().eventsPage('lead-paged', { limit: 'x' }))).toBe('400 VALIDATION_ERROR limit');
    expect(await codeOf(leads().eventsPage('lead-paged', { newer_than_cursor: mine, older_than_cursor: mine }))).toBe(
      '400 VALIDATION_ERROR newer_than_cursor',
    );
    expect(await codeOf(leads().eventsPage('lead-paged', { older_than_cursor: otherCursor }))).toBe(
      '400 VALIDATION_ERROR older_than_cursor',
    );
    expect(await codeOf(leads().eventsPage('lead-paged', { newer_than_cursor: 'garbage' }))).toBe('400 VALIDATION_ERROR newer_than_cursor');
    expect(await codeOf(leads().eventsPage('no-such-lead', {}))).toBe('404 NOT_FOUND');
  });

  it("pages a business's lead ids newest first, with has_more, inside a time window", async () => {
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Many leads' }) })).body.id;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await leads().emit(business, {})).lead_id);
      h.pbs.ctx.sandboxClock!.advance(60_000);
    }
    const newestFirst = [...made].reverse();
    const one = await leads().leadIds(business, { limit: '2' });
    expect(one).toEqual({ lead_ids: newestFirst.slice(0, 2), has_more: true });
    const two = await leads().leadIds(business, { limit: '2', after_lead_id: one.lead_ids[1] });
    expect(two).toEqual({ lead_ids: newestFirst.slice(2, 4), has_more: true });
    expect(await leads().leadIds(business, { limit: '2', after_lead_id: two.lead_ids[1] })).toEqual({
      lead_ids: newestFirst.slice(4),
      has_more: false,
    });
    const times = await Promise.all(made.map(async (id) => (await leads().get(id)).lead.time_created));
    expect(await leads().leadIds(business, { created_after: times[1], created_before: times[3] })).toEqual({
      lead_ids: newestFirst.slice(1, 4),
      has_more: false,
    });
    expect(await codeOf(leads().leadIds(business, { created_after: 'yesterday' }))).toBe('400 VALIDATION_ERROR created_after');
    expect(await codeOf(leads().leadIds(business, { after_lead_id: 'lead-paged' }))).toBe('400 VALIDATION_ERROR after_lead_id');
    expect(await codeOf(leads().leadIds(business, { limit: '25' }))).toBe('400 VALIDATION_ERROR limit');
    expect(await codeOf(leads().leadIds('no-such-business', {}))).toBe('404 BUSINESS_NOT_FOUND');
  });
});

describe('a text and its attachment', () => {
  const event = (seq: number, id: string): LeadEvent => ({
    lead_id: 'L',
    seq,
    id,
    time_created: 0,
    event_type: seq === 3 ? 'ATTACHMENT_GROUPING' : 'TEXT',
    user_type: 'CONSUMER',
    user_id: 'u',
    user_display_name: 'U',
    content: '{}',
    channel: null,
    message_id: null,
  });
  const events = [event(1, 'a'), event(2, 'b'), event(3, 'b'), event(4, 'c')];

  it('count once toward the limit and stay on one page', () => {
    expect(takeGroups(events, 2, 'last').map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(takeGroups(events, 2, 'first').map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(takeGroups(events, 1, 'last').map((e) => e.seq)).toEqual([4]);
  });
});
