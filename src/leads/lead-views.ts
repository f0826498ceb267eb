import { toIsoOffset } from '../platform/clock.js';
import { eventCursor, type EventContent, type LeadProject } from './lead-rules.js';
import type { Lead, LeadEvent } from './lead-store.js';

/** The masked e-mail address lives 30 days from the lead (docs/contract/leads.md). */
const EMAIL_LIFETIME_MS = 30 * 86_400_000;
/** New leads carry a far-future phone expiry; real clients must accept it. */
const PHONE_EXPIRY = '2099-12-31T00:00:00+00:00';

export interface LeadLinks {
  /** Where the business replies in pbs's own screens (`link_to_reply_in_yelp`). */
  publicUrl: string;
  /** The domain of masked e-mail addresses. */
  emailDomain: string;
}

/**
 * Get Lead's JSON. An absent optional field is left out, never null: real clients validate
 * with strict schemas that refuse null (docs/contract/leads.md).
 */
export function leadJson(lead: Lead, links: LeadLinks) {
  const phone = lead.phone_number ?? undefined;
  const project: LeadProject = JSON.parse(lead.project);
  return {
    id: lead.id,
    business_id: lead.business_id,
    conversation_id: lead.conversation_id,
    time_created: toIsoOffset(Number(lead.time_created)),
    last_event_time: toIsoOffset(Number(lead.last_event_time)),
    user: { display_name: lead.consumer_name },
    project,
    temporary_email_address: `${lead.email_local}@${links.emailDomain}`,
    temporary_email_address_expiry: toIsoOffset(Number(lead.time_created) + EMAIL_LIFETIME_MS),
    ...(phone ? { phone_number: phone, temporary_phone_number: phone, temporary_phone_number_expiry: PHONE_EXPIRY } : {}),
    link_to_reply_in_yelp: `${links.publicUrl}/leads_center/${lead.business_id}/leads/${lead.id}`,
  };
}

/** An event of Get Lead Events, with its paging token; `channel` only where the event has one. */
export function eventJson(event: LeadEvent) {
  const content: EventContent = JSON.parse(event.content);
  return {
    id: event.id,
    cursor: eventCursor(event.lead_id, Number(event.seq)),
    time_created: toIsoOffset(Number(event.time_created)),
    event_type: event.event_type,
    user_type: event.user_type,
    user_id: event.user_id,
    user_display_name: event.user_display_name,
    event_content: content,
    ...(event.channel ? { channel: event.channel } : {}),
  };
}

/** The links of a deployment's leads. */
export function leadLinks(publicUrl: string): LeadLinks {
  return { publicUrl: publicUrl.replace(/\/$/, ''), emailDomain: emailDomainOf(publicUrl) };
}

/** A masked e-mail domain for a deployment: `messaging.` and the public host, when that is a name. */
export function emailDomainOf(publicUrl: string): string {
  const host = new URL(publicUrl).hostname;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && !/^[\d.]+$/.test(host) && !host.endsWith('.localhost')
    ? `messaging.${host}`
    : 'messaging.example.com';
}
