import type { BusinessDirectory } from '../businesses/business-service.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import { isUniqueViolation, type Database, type DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { recordEvent } from '../platform/events.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { messageIdOf } from '../webhooks/delivery-reads.js';
import { consumerFollowUp, consumerName, draftProject, requestSummary, textContent, type LeadProject } from './lead-rules.js';
import { eventsPage, leadIdsPage } from './lead-reads.js';
import { LeadStore, type Lead } from './lead-store.js';
import { eventJson, leadJson, leadLinks, type LeadLinks } from './lead-views.js';

/** The lead webhooks (docs/contract/webhooks.md §6.3): a new event, and a consumer's phone opt-in or opt-out. */
export const LEAD_EVENT_TYPES = ['NEW_EVENT', 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT', 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT'] as const;
export type LeadEventType = (typeof LEAD_EVENT_TYPES)[number];

/** Longest consumer message the operator may post (the original's messages are short; this keeps rows small). */
export const MAX_MESSAGE_LENGTH = 5000;
/** Most events the operator's view of a conversation shows (the newest). */
const OPERATOR_VIEW_EVENTS = 500;
/** Most leads the operator's list of a business shows (the newest). */
const OPERATOR_LIST_LEADS = 100;

/** Most events one lead holds: a conversation a partner drives by hand in the sandbox stays small. */
export const MAX_EVENTS_PER_LEAD = 10_000;

export interface LeadServiceOptions {
  publicUrl: string;
  /** MAX_EVENTS_PER_LEAD unless said (tests say less). */
  maxEventsPerLead?: number;
  /** Told after a change wrote webhook events (the relay hands them on). */
  onEventsCommitted: () => void;
}

/** What the operator (or the CLI) asks for: a lead event for a business, as its webhook will say. */
export interface LeadEmission {
  lead_id?: string;
  event_type?: LeadEventType;
  /** The consumer's message (a NEW_EVENT on an existing lead; a new lead's additional details); a realistic one when absent. */
  text?: string;
  /** The number a phone opt-in shares (E.164); a test number when absent. */
  phone_number?: string;
}

/**
 * Leads (docs/contract/leads.md): the conversation behind every lead webhook. A new lead is a
 * lead record and the consumer's first message (the platform's summary of the request), written
 * in one transaction with its NEW_EVENT webhook, whose `event_id` is that message's id; later
 * consumer messages append events the same way.
 */
export class LeadService {
  private readonly links: LeadLinks;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
    private readonly options: LeadServiceOptions,
  ) {
    this.links = leadLinks(options.publicUrl);
  }

  private store(db: DbOrTx = this.database.db) {
    return new LeadStore(db, this.database.dialect);
  }

  /**
   * The operator's lead event for a business: NEW_EVENT starts the lead `lead_id` (or a new one)
   * or, when it exists, adds a consumer message to it; a phone opt-in or opt-out changes the
   * lead's phone number. Each is written with its webhook in one transaction.
   */
  async emit(businessIdOrAlias: string, input: LeadEmission) {
    const business = await this.businesses.get(businessIdOrAlias);
    const type = input.event_type ?? 'NEW_EVENT';
    if (input.text !== undefined && type !== 'NEW_EVENT')
      throw apiError('VALIDATION_ERROR', 'text is for a NEW_EVENT (a consumer message)', { field: 'text' });
    if (type !== 'NEW_EVENT' && !input.lead_id)
      throw apiError('VALIDATION_ERROR', `lead_id is required for ${type}: the lead whose consumer opted in or out`, { field: 'lead_id' });
    const now = this.clock.now();
    const written = await this.database
      .transact(async (trx) => {
        const store = this.store(trx);
        const existing = input.lead_id === undefined ? undefined : await store.lockLead(input.lead_id);
        if (existing && existing.business_id !== business.id)
          throw apiError('VALIDATION_ERROR', `Lead ${existing.id} is a lead of another business`, { field: 'lead_id' });
        if (type !== 'NEW_EVENT') {
          if (!existing) throw apiError('NOT_FOUND', `Lead ${input.lead_id} not found for this business`, { field: 'lead_id' });
          const phone = type === 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT' ? (input.phone_number ?? testPhoneNumber()) : null;
          await store.updateLead(existing.id, { phone_number: phone });
          const update = { event_type: type, lead_id: existing.id };
          return { leadId: existing.id, webhookEventId: await this.webhook(trx, business.id, update, now) };
        }
        const { lead, eventId } = existing
          ? { lead: existing, eventId: await this.consumerMessage(store, existing, input.text ?? consumerFollowUp(Math.random), now) }
          : await this.start(store, business, input.lead_id ?? newId(), input.text, now);
        const update = { event_type: type, event_id: eventId, lead_id: lead.id, interaction_time: toIsoOffset(now) };
        const webhookEventId = await this.webhook(trx, business.id, update, now);
        await store.setEventMessage(lead.id, eventId, messageIdOf(webhookEventId));
        return { leadId: lead.id, eventId, webhookEventId };
      })
      .catch((error: unknown) => {
        // Two emissions naming one new lead id at once: the second finds it taken.
        if (isUniqueViolation(error)) throw apiError('CONFLICT', `Lead ${input.lead_id} was just created by another request; send again`);
        throw error;
      });
    this.options.onEventsCommitted();
    return {
      event_id: written.webhookEventId,
      message_id: messageIdOf(written.webhookEventId),
      lead_id: written.leadId,
      ...(written.eventId ? { lead_event_id: written.eventId } : {}),
    };
  }

  /** How many leads a business has. */
  countOf(businessId: string): Promise<number> {
    return this.store().countOfBusiness(businessId);
  }

  /** Whether a lead exists (the demo seeds its leads once). */
  async exists(leadId: string): Promise<boolean> {
    return (await this.store().lead(leadId)) !== undefined;
  }

  /** A consumer's message in an existing lead (a realistic one when `text` is absent), with its NEW_EVENT webhook. */
  async consumerSays(leadId: string, text: string | undefined) {
    const lead = await this.store().lead(leadId);
    if (!lead) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
    return this.emit(lead.business_id, { lead_id: lead.id, ...(text === undefined ? {} : { text }) });
  }

  /** A lead by its id, for the operator's "find anything"; undefined when there is none. */
  async find(leadId: string) {
    const lead = await this.store().lead(leadId);
    return lead && { id: lead.id, business_id: lead.business_id };
  }

  /** A lead and its conversation as the partner will read them, for the operator (the newest 500 events). */
  async get(leadId: string) {
    const lead = await this.store().lead(leadId);
    if (!lead) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
    const events = await this.store().latestEvents(lead.id, OPERATOR_VIEW_EVENTS);
    return {
      lead: leadJson(lead, this.links),
      // Beside each event, the webhook message that announced it (the operator's and the portal's view only).
      events: events.map((e) => ({ ...eventJson(e), ...(e.message_id ? { message_id: e.message_id } : {}) })),
      read_through_event_id: events.find((e) => Number(e.seq) === Number(lead.read_through))?.id ?? null,
      replied_as: lead.replied_as,
    };
  }

  /**
   * A page of a lead's events as Get Lead Events answers it (lead-reads.ts). The reach of the
   * caller is checked by the caller; an unknown lead is 404.
   */
  async eventsPage(leadId: string, query: Record<string, unknown>) {
    const lead = await this.store().lead(leadId);
    if (!lead) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
    return eventsPage(this.store(), lead, query);
  }

  /** A page of a business's lead ids as Get Lead IDs for a business answers it (lead-reads.ts). */
  async leadIds(businessIdOrAlias: string, query: Record<string, unknown>) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    return leadIdsPage(this.store(), business.id, query);
  }

  /** A business's newest leads, for the operator. */
  async list(businessIdOrAlias: string) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const leads = await this.store().leadsOfBusiness(business.id, OPERATOR_LIST_LEADS);
    return { leads: leads.map((lead) => leadJson(lead, this.links)) };
  }

  /**
   * A new lead: its record and the consumer's first message summarising the request; `details`,
   * when given, are the request's additional details (and so the end of that message).
   */
  private async start(
    store: LeadStore,
    business: Awaited<ReturnType<BusinessDirectory['get']>>,
    leadId: string,
    details: string | undefined,
    now: number,
  ) {
    const random = Math.random;
    const drafted = draftProject(
      {
        // A restaurant's categories are its cuisines: it is asked for catering and private events.
        categories: [
          ...business.categories.map((c) => c.alias),
          ...(business.transactions.includes('restaurant_reservation') ? ['restaurants'] : []),
        ],
        postalCode: business.location.zip_code,
      },
      toIsoOffset(now).slice(0, 10),
      random,
    );
    const project: LeadProject = details === undefined ? drafted : { ...drafted, additional_info: details };
    const lead: Lead = {
      id: leadId,
      business_id: business.id,
      conversation_id: newId(),
      consumer_id: newId(),
      consumer_name: consumerName(random),
      project: JSON.stringify(project),
      email_local: randomBase62(22),
      phone_number: null,
      time_created: now,
      last_event_time: now,
      last_seq: 0,
      read_through: 0,
      replied_as: null,
    };
    await store.insertLead(lead);
    return { lead, eventId: await this.consumerMessage(store, lead, requestSummary(project), now) };
  }

  /** A consumer's text appended to the conversation; its event id. */
  private async consumerMessage(store: LeadStore, lead: Lead, text: string, now: number): Promise<string> {
    const id = newId();
    const seq = Number(lead.last_seq) + 1;
    const max = this.options.maxEventsPerLead ?? MAX_EVENTS_PER_LEAD;
    if (seq > max) throw apiError('QUOTA_EXCEEDED', `Lead ${lead.id} holds ${max} events, the most a lead may hold`);
    await store.insertEvent({
      lead_id: lead.id,
      seq,
      id,
      time_created: now,
      event_type: 'TEXT',
      user_type: 'CONSUMER',
      user_id: lead.consumer_id,
      user_display_name: lead.consumer_name,
      content: JSON.stringify(textContent(text)),
      channel: null,
      message_id: null,
    });
    await store.updateLead(lead.id, { last_seq: seq, last_event_time: now });
    return id;
  }

  private webhook(trx: DbOrTx, businessId: string, update: { event_type: LeadEventType; lead_id: string }, at: number) {
    return recordEvent(trx, this.database.dialect, { type: update.event_type, businessId, payload: update, at });
  }
}

/** A number from the range reserved for fiction (555-01xx), as a consumer's opt-in shares it. */
function testPhoneNumber(): string {
  return `+1415555${String(100 + Math.floor(Math.random() * 100)).padStart(4, '0')}`;
}
