import { ApiError, apiError } from '../platform/errors.js';
import type { LeadService } from './lead-service.js';

/** What the portal's leads need of the partners family: the business a partner may act for. */
export interface LeadPortalAccess {
  /** The business id of `businessIdOrAlias` when linked to the partner; 404 BUSINESS_NOT_FOUND or 403 AUTHORIZATION_ERROR otherwise. */
  linkedBusiness(partnerId: string, businessIdOrAlias: string): Promise<string>;
  sandbox: boolean;
  /** MAX_PORTAL_LEADS_PER_BUSINESS unless said (tests say less). */
  maxLeadsPerBusiness?: number;
}

/** A business with this many leads takes no more started by hand: one partner cannot grow the tables without end. */
export const MAX_PORTAL_LEADS_PER_BUSINESS = 1000;

/**
 * Leads in the partner portal (docs/contract/leads.md): the partner's own businesses' leads and
 * their conversations; in the sandbox it may also start a lead and speak for the consumer, to try
 * its integration against the webhooks they cause.
 */
export class LeadPortal {
  constructor(
    private readonly leads: LeadService,
    private readonly access: LeadPortalAccess,
  ) {}

  async list(partnerId: string, businessIdOrAlias: string) {
    return this.leads.list(await this.access.linkedBusiness(partnerId, businessIdOrAlias));
  }

  /** A lead of a business the partner may act for; any other is not found (its existence is not told). */
  async get(partnerId: string, leadId: string) {
    const view = await this.leads.get(leadId);
    await this.access.linkedBusiness(partnerId, view.lead.business_id).catch((error: unknown) => {
      // Not linked (or the business gone): as if there were no such lead. Anything else (the
      // database away) stays what it is.
      if (error instanceof ApiError && error.status < 500) throw apiError('NOT_FOUND', `Lead ${leadId} not found`);
      throw error;
    });
    return view;
  }

  async start(partnerId: string, businessIdOrAlias: string, text: string | undefined) {
    this.sandboxOnly();
    const businessId = await this.access.linkedBusiness(partnerId, businessIdOrAlias);
    const max = this.access.maxLeadsPerBusiness ?? MAX_PORTAL_LEADS_PER_BUSINESS;
    if ((await this.leads.countOf(businessId)) >= max)
      throw apiError('QUOTA_EXCEEDED', `Business ${businessId} has ${max} leads, the most the portal starts by hand`);
    return this.leads.emit(businessId, text === undefined ? {} : { text });
  }

  async consumerSays(partnerId: string, leadId: string, text: string | undefined) {
    this.sandboxOnly();
    await this.get(partnerId, leadId);
    return this.leads.consumerSays(leadId, text);
  }

  private sandboxOnly(): void {
    if (!this.access.sandbox)
      throw apiError('AUTHORIZATION_ERROR', 'Leads made by hand are for the sandbox; this server runs in production.');
  }
}
