import type { Insertable, Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import { keysetBefore } from '../platform/db/keyset.js';
import type { LeadEventsTable, LeadsTable } from './lead-tables.js';
import './lead-tables.js';

export type Lead = Selectable<LeadsTable>;
export type LeadEvent = Selectable<LeadEventsTable>;

/** SQL of leads and their conversations. */
export class LeadStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  lead(id: string): Promise<Lead | undefined> {
    return this.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The lead, locked for the transaction on PostgreSQL: events of one lead are numbered in turn. */
  lockLead(id: string): Promise<Lead | undefined> {
    return forUpdateOn(this.db.selectFrom('leads').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  async insertLead(lead: Insertable<LeadsTable>): Promise<void> {
    await this.db.insertInto('leads').values(lead).execute();
  }

  async updateLead(id: string, change: Partial<Insertable<LeadsTable>>): Promise<void> {
    await this.db.updateTable('leads').set(change).where('id', '=', id).execute();
  }

  async insertEvent(event: Insertable<LeadEventsTable>): Promise<void> {
    await this.db.insertInto('lead_events').values(event).execute();
  }

  /** The newest `limit` events of a lead, oldest first. */
  async latestEvents(leadId: string, limit: number): Promise<LeadEvent[]> {
    const newest = await this.db
      .selectFrom('lead_events')
      .selectAll()
      .where('lead_id', '=', leadId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return newest.reverse();
  }

  /** Up to `limit` events after sequence `seq`, oldest first. */
  eventsAfter(leadId: string, seq: number, limit: number): Promise<LeadEvent[]> {
    return this.db
      .selectFrom('lead_events')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('seq', '>', seq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  /** Up to `limit` events before sequence `seq` (the newest of them), oldest first. */
  async eventsBefore(leadId: string, seq: number, limit: number): Promise<LeadEvent[]> {
    const newest = await this.db
      .selectFrom('lead_events')
      .selectAll()
      .where('lead_id', '=', leadId)
      .where('seq', '<', seq)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return newest.reverse();
  }

  /**
   * A business's lead ids, newest first (by creation, then id), created within the window
   * (inclusive) and after `from` in that order; `limit` of them.
   */
  async leadIdsNewestFirst(
    businessId: string,
    window: { after?: number; before?: number; from?: { time: number; id: string } },
    limit: number,
  ): Promise<string[]> {
    let query = this.db.selectFrom('leads').select('id').where('business_id', '=', businessId);
    if (window.after !== undefined) query = query.where('time_created', '>=', window.after);
    if (window.before !== undefined) query = query.where('time_created', '<=', window.before);
    if (window.from) query = keysetBefore(query, { sequence: 'time_created', id: 'id' }, { seq: window.from.time, id: window.from.id });
    const rows = await query.orderBy('time_created', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => r.id);
  }

  async countOfBusiness(businessId: string): Promise<number> {
    const row = await this.db
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('business_id', '=', businessId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A business's leads, newest first, `limit` of them. */
  leadsOfBusiness(businessId: string, limit: number): Promise<Lead[]> {
    return this.db
      .selectFrom('leads')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('time_created', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The sequence number of the last event with this id in the lead (a text and its attachment share one). */
  async lastSeqOfEvent(leadId: string, eventId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('lead_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('lead_id', '=', leadId)
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
  }

  /** Events up to `seq` are read; an earlier mark never moves it back. */
  async markReadThrough(leadId: string, seq: number): Promise<void> {
    await this.db.updateTable('leads').set({ read_through: seq }).where('id', '=', leadId).where('read_through', '<', seq).execute();
  }

  /** Marks the lead replied outside the conversation; false when it already was. */
  async markReplied(leadId: string, replyType: string): Promise<boolean> {
    const result = await this.db
      .updateTable('leads')
      .set({ replied_as: replyType })
      .where('id', '=', leadId)
      .where('replied_as', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Names the webhook message that announced an event. */
  async setEventMessage(leadId: string, eventId: string, messageId: string): Promise<void> {
    await this.db
      .updateTable('lead_events')
      .set({ message_id: messageId })
      .where('lead_id', '=', leadId)
      .where('id', '=', eventId)
      .execute();
  }
}
