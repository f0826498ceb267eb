import { toIsoOffset } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import { ingestionUpdate, leadUpdate, licenseUpdate, type WebhookUpdate } from './operator-events.js';
import type { WebhookEventType } from './webhook-tables.js';

/**
 * A realistic update of each type a partner can receive, for the portal's test events (issue 26):
 * the fields each family's real event carries, with made-up ids, and `"test": true` so a receiver
 * can tell it from a real one. Pure.
 */
export function testUpdate(type: WebhookEventType, businessId: string, now: number): WebhookUpdate {
  const base = { event_id: newId(), test: true };
  const at = toIsoOffset(now);
  switch (type) {
    case 'NEW_REVIEW_EVENT':
    case 'REVIEW_EDITED_EVENT':
    case 'REVIEW_REMOVED_EVENT':
      return { event_type: type, ...base, review_id: `test-review-${newId()}`, rating: 4, language: 'en', user_id: `test-user-${newId()}` };
    case 'NEW_EVENT':
    case 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT':
    case 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT':
      return { ...leadUpdate({ event_type: type, lead_id: `test-lead-${newId()}` }, now), test: true };
    case 'VERIFIED_LICENSE_UPDATE_EVENT':
      return {
        ...licenseUpdate({ license_verification_status: 'VERIFIED', license_number: 'TEST-0000', license_trade: 'Test trade' }),
        test: true,
      };
    case 'DATA_INGESTION_JOB_UPDATE_EVENT':
      return { ...ingestionUpdate({ job_id: `test-job-${newId()}`, status: 'COMPLETED' }), test: true };
    case 'RESERVATION_CREATED_EVENT':
    case 'RESERVATION_CANCELED_BY_GUEST_EVENT':
    case 'RESERVATION_CANCELED_BY_RESTAURANT_EVENT': {
      const day = toIsoOffset(now + 2 * 86_400_000).slice(0, 10);
      const status = type === 'RESERVATION_CREATED_EVENT' ? 'ACTIVE' : 'CANCELED';
      const source = type === 'RESERVATION_CANCELED_BY_RESTAURANT_EVENT' ? 'RESTAURANT' : 'PARTNER_API';
      return {
        event_type: type,
        ...base,
        reservation_id: `test-reservation-${newId()}`,
        date: day,
        time: '19:00',
        covers: 2,
        unique_id: 'test-guest',
        status,
        ...(status === 'CANCELED' ? { source } : {}),
      };
    }
    case 'ADVERTISING_JOB_COMPLETED_EVENT':
      return {
        event_type: type,
        ...base,
        job_id: `test-job-${newId()}`,
        status: 'COMPLETED',
        identifier_type: 'BUSINESS',
        identifier: businessId,
        result_status: 'COMPLETED',
      };
    case 'ADVERTISING_PROGRAM_UPDATED_EVENT':
      return {
        event_type: type,
        ...base,
        change: 'CREATED',
        program_id: `test-program-${newId()}`,
        program_type: 'CPC',
        yelp_business_id: businessId,
        program_status: 'ACTIVE',
        program_pause_status: 'NOT_PAUSED',
        updated_at: at,
      };
    case 'WAITLIST_VISIT_UPDATED_EVENT':
      return {
        event_type: type,
        ...base,
        visit_id: `test-visit-${newId()}`,
        change: 'NOTIFIED',
        state: 'NOTIFIED',
        party_size: 2,
        updated_at: at,
      };
  }
}
