import type { BusinessDirectory } from '../businesses/business-service.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { answerWithinChange, type PartnerWrite } from '../platform/idempotency.js';
import { newId } from '../platform/ids.js';
import { messageIdOf } from '../webhooks/delivery-reads.js';
import { isRecord } from '../platform/values.js';
import { eventsPage, leadIdsPage } from './lead-reads.js';
import { sameSuccessiveMessage, textContent, type EventContent } from './lead-rules.js';
import { MAX_EVENTS_PER_LEAD, MAX_MESSAGE_LENGTH } from './lead-service.js';
import { LeadStore, type Lead } from './lead-store.js';
import { leadJson, type LeadLinks } from './lead-views.js';

/** The ids pbs issues or takes for leads and events; anything else is 400 INVALID_ID. */
export const LEAD_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const LEAD_ID = new RegExp(LEAD_ID_PATTERN);
/** Where a reply written through the Leads API says it came from (the original's `channel`). */
const API_CHANNEL = 'API-SELF';
/** The reply types mark_as_replied takes. */
const REPLY_TYPES = ['PHONE', 'EMAIL'];
/** How far back a reply is compared with the previous one (the original's hour). */
const SAME_MESSAGE_WINDOW_MS = 3_600_000;
/** Events read to judge a repeated reply: the business's previous message is nearly always among the newest. */
const RECENT_EVENTS = 50;

/** Who calls: the partner acting for a business user with that user's token. */
export interface LeadCaller {
  partnerId: string;
  userId: string;
}

/** What the Leads API asks of other families. */
export interface LeadApiAccess {
  /** Whether the business user manages the business (owners). */
  manages(userId: string, businessId: string): Promise<boolean>;
  /** Whether the business currently advertises (advertising): only those have leads data. */
  advertisingNow(businessId: string): Promise<boolean>;
}

export interface LeadApiOptions {
  links: LeadLinks;
  maxEventsPerLead?: number;
  onEventsCommitted: () => void;
}

/**
 * The partner's Leads API (docs/contract/leads.md §12.2–12.10), called with a business user's
 * token: reads of a lead, its events and a business's lead ids; a reply, mark as read and mark
 * as replied. A lead reaches the caller when its business is one the user manages (else 404, so
 * another business's lead is not revealed) and advertises (else 403).
 */
export class LeadApi {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
    private readonly access: LeadApiAccess,
    private readonly options: LeadApiOptions,
  ) {}

  private store(db: DbOrTx = this.database.db) {
    return new LeadStore(db, this.database.dialect);
  }

  /** `GET /v3/leads/{id}`. */
  async lead(caller: LeadCaller, leadId: string) {
    return leadJson(await this.reachable(caller, leadId), this.options.links);
  }

  /** `GET /v3/leads/{id}/events`. */
  async events(caller: LeadCaller, leadId: string, query: Record<string, unknown>) {
    return eventsPage(this.store(), await this.reachable(caller, leadId), query);
  }

  /**
   * `GET /v3/leads/{id}/metrics`: enabled per client in the original, for partners who report
   * revenue; pbs keeps no lead costs, so it answers as for a client without it (§12.9).
   */
  async metrics(caller: LeadCaller, leadId: string): Promise<never> {
    await this.reachable(caller, leadId);
    throw apiError('PARTNER_ENDPOINT_DISABLED', 'Lead metrics are not enabled for this client: pbs keeps no cost per lead.');
  }

  /** `GET /v3/businesses/{business_id}/lead_ids`: an unknown business 404, one the user does not manage 403 NO_BUSINESS_ACCESS. */
  async leadIds(caller: LeadCaller, businessIdOrAlias: string, query: Record<string, unknown>) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    if (!(await this.access.manages(caller.userId, business.id)))
      throw apiError('NO_BUSINESS_ACCESS', `The business user does not manage business ${businessIdOrAlias}`);
    await this.requireAdvertising(business.id);
    return leadIdsPage(this.store(), business.id, query);
  }

  /**
   * `POST /v3/leads/{id}/events`: the business's text reply, an event of the conversation
   * (`user_type` BIZ, `channel` API-SELF) written with its NEW_EVENT webhook, which goes to the
   * writer too (the original's echo). The same text again within an hour, with no consumer
   * message between, is 400 SAME_SUCCESSIVE_MESSAGE.
   */
  async reply(caller: LeadCaller, leadId: string, body: unknown, write?: PartnerWrite) {
    const text = replyText(body);
    const lead = await this.reachable(caller, leadId);
    const business = await this.businesses.get(lead.business_id);
    const now = this.clock.now();
    const eventId = await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const locked = await store.lockLead(lead.id);
      if (!locked) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
      const recent = (await store.latestEvents(locked.id, RECENT_EVENTS)).map((e) => {
        const content: EventContent = JSON.parse(e.content);
        return { userType: e.user_type, text: content.text, at: Number(e.time_created) };
      });
      if (sameSuccessiveMessage(recent, text, now, SAME_MESSAGE_WINDOW_MS))
        throw apiError('SAME_SUCCESSIVE_MESSAGE', undefined, { field: 'request_content' });
      const seq = Number(locked.last_seq) + 1;
      const max = this.options.maxEventsPerLead ?? MAX_EVENTS_PER_LEAD;
      if (seq > max) throw apiError('QUOTA_EXCEEDED', `Lead ${locked.id} holds ${max} events, the most a lead may hold`);
      const id = newId();
      const update = { event_type: 'NEW_EVENT', event_id: id, lead_id: locked.id, interaction_time: toIsoOffset(now) };
      const webhookEventId = await recordEvent(trx, this.database.dialect, {
        type: 'NEW_EVENT',
        businessId: locked.business_id,
        payload: update,
        at: now,
        requestId: write?.requestId,
      });
      await store.insertEvent({
        lead_id: locked.id,
        seq,
        id,
        time_created: now,
        event_type: 'TEXT',
        user_type: 'BIZ',
        user_id: caller.userId,
        user_display_name: business.name,
        content: JSON.stringify(textContent(text)),
        channel: API_CHANNEL,
        message_id: messageIdOf(webhookEventId),
      });
      await store.updateLead(locked.id, { last_seq: seq, last_event_time: now });
      await answerWithinChange(trx, write, 201, { event_id: id });
      return id;
    });
    this.options.onEventsCommitted();
    return { event_id: eventId };
  }

  /** `POST /v3/leads/{id}/events/mark_as_read`: that event and every earlier one are read; again is no change. */
  async markRead(caller: LeadCaller, leadId: string, body: unknown, write?: PartnerWrite) {
    const fields = isRecord(body) ? body : {};
    const eventId = fields.event_id;
    if (eventId === undefined || eventId === null)
      throw apiError('VALIDATION_ERROR', "'event_id' is a required property", { field: 'event_id' });
    if (typeof eventId !== 'string' || !LEAD_ID.test(eventId))
      throw apiError('INVALID_ID', 'The event id is not valid', { field: 'event_id' });
    const timeRead = fields.time_read;
    if (timeRead !== undefined && !(typeof timeRead === 'string' && isDateTime(timeRead)))
      throw apiError('VALIDATION_ERROR', `'${shown(timeRead)}' is not a 'date-time'`, { field: 'time_read' });
    const lead = await this.reachable(caller, leadId);
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      const seq = await store.lastSeqOfEvent(lead.id, eventId);
      if (seq === undefined) throw apiError('NOT_FOUND', `Event ${eventId} not found in lead ${lead.id}`);
      await store.markReadThrough(lead.id, seq);
      await answerWithinChange(trx, write, 201, {});
    });
    return {};
  }

  /** `POST /v3/leads/{id}/mark_as_replied`: once per lead (again is 403 NOT_AUTHORIZED). */
  async markReplied(caller: LeadCaller, leadId: string, body: unknown, write?: PartnerWrite) {
    const replyType = isRecord(body) ? body.reply_type : undefined;
    if (replyType === undefined || replyType === null)
      throw apiError('VALIDATION_ERROR', "'reply_type' is a required property", { field: 'reply_type' });
    if (typeof replyType !== 'string' || !REPLY_TYPES.includes(replyType))
      throw apiError('VALIDATION_ERROR', `'${shown(replyType)}' is not one of ['PHONE', 'EMAIL']`, { field: 'reply_type' });
    const lead = await this.reachable(caller, leadId);
    await this.database.transact(async (trx) => {
      if (!(await this.store(trx).markReplied(lead.id, replyType))) throw apiError('NOT_AUTHORIZED', 'Lead already marked as replied');
      await answerWithinChange(trx, write, 201, {});
    });
    return {};
  }

  /**
   * The lead, when the caller may use it: an id pbs could have issued (else 400 INVALID_ID), a
   * lead of a business the user manages (else 404, as for no lead), advertising (else 403).
   */
  private async reachable(caller: LeadCaller, leadId: string): Promise<Lead> {
    if (!LEAD_ID.test(leadId)) throw apiError('INVALID_ID', 'The lead id is not valid');
    const lead = await this.store().lead(leadId);
    if (!lead || !(await this.access.manages(caller.userId, lead.business_id))) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
    await this.requireAdvertising(lead.business_id);
    return lead;
  }

  private async requireAdvertising(businessId: string): Promise<void> {
    if (!(await this.access.advertisingNow(businessId))) throw apiError('UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING');
  }
}

/**
 * The reply's text from `{request_content, request_type}` (§12.5): both required, `request_type`
 * TEXT, and the content matching the original's pattern `[\S\s]+[\S]+` (a search, as JSON
 * Schema's `pattern` is: two characters at least, a non-space after the first).
 */
function replyText(body: unknown): string {
  const fields = isRecord(body) ? body : {};
  for (const name of ['request_content', 'request_type'])
    if (fields[name] === undefined || fields[name] === null)
      throw apiError('VALIDATION_ERROR', `'${name}' is a required property`, { field: name });
  if (fields.request_type !== 'TEXT')
    throw apiError('VALIDATION_ERROR', `'${shown(fields.request_type)}' is not one of ['TEXT']`, { field: 'request_type' });
  const text = fields.request_content;
  if (typeof text !== 'string')
    throw apiError('VALIDATION_ERROR', "'request_content' is not of type 'string'", { field: 'request_content' });
  if (!/[\S\s]+[\S]+/.test(text))
    throw apiError('VALIDATION_ERROR', `'${shown(text)}' does not match '[\\\\S\\\\s]+[\\\\S]+'`, { field: 'request_content' });
  if (text.length > MAX_MESSAGE_LENGTH)
    throw apiError('VALIDATION_ERROR', `request_content is at most ${MAX_MESSAGE_LENGTH} characters`, { field: 'request_content' });
  return text;
}

/** A sent value as an error description quotes it (jsonschema's style), shortened. */
function shown(value: unknown): string {
  return (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined')).slice(0, 50);
}

/** RFC 3339 date-time, `Z` or an offset. */
function isDateTime(value: string): boolean {
  return /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value));
}
