import { randomUUID } from 'node:crypto';
import { toIsoOffset } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import type { WebhookEventType } from './webhook-tables.js';

/**
 * The updates the operator emits for a business (docs/contract/webhooks.md §6.3): built here only, for the operator
 * API and the CLI alike. Reviews come from the reviews family, reservations from theirs.
 */
export interface WebhookUpdate {
  event_type: WebhookEventType;
  [field: string]: unknown;
}

export type LeadEventType = 'NEW_EVENT' | 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT' | 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT';

/**
 * A lead update of a portal test event: a new lead (with a unique event_id for de-duplication) or
 * a consumer's phone opt-in/out. Real lead events are written by the leads family with the lead
 * behind them (src/leads/lead-service.ts).
 */
export function leadUpdate(input: { lead_id?: string; event_type?: LeadEventType }, now: number): WebhookUpdate {
  const type = input.event_type ?? 'NEW_EVENT';
  const lead_id = input.lead_id ?? newId();
  return type === 'NEW_EVENT'
    ? { event_type: type, event_id: randomUUID(), lead_id, interaction_time: toIsoOffset(now) }
    : { event_type: type, lead_id };
}

export interface LicenseInput {
  license_verification_status: 'VERIFIED' | 'REJECTED' | 'PENDING';
  license_verification_failure_reason?: string;
  license_number: string;
  license_expiry_date?: string | null;
  license_trade?: string | null;
  license_issuing_agency?: string | null;
}

/** A license verification update; a rejection always names its reason (REJECT when none is given). */
export function licenseUpdate(input: LicenseInput): WebhookUpdate {
  return {
    event_type: 'VERIFIED_LICENSE_UPDATE_EVENT',
    license_verification_status: input.license_verification_status,
    ...(input.license_verification_status === 'REJECTED'
      ? { license_verification_failure_reason: input.license_verification_failure_reason ?? 'REJECT' }
      : {}),
    license_number: input.license_number,
    license_expiry_date: input.license_expiry_date ?? null,
    license_trade: input.license_trade ?? null,
    license_issuing_agency: input.license_issuing_agency ?? null,
  };
}

/** A listing data-ingestion job update (docs/contract/webhooks.md §6.3 leaves its fields open: job id and status). */
export function ingestionUpdate(input: { job_id: string; status: string }): WebhookUpdate {
  return { event_type: 'DATA_INGESTION_JOB_UPDATE_EVENT', job_id: input.job_id, status: input.status };
}
