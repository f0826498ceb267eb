import type { LeadService } from '../leads/lead-service.js';
import { need, UsageError } from './args.js';

/** `pbs lead …`: a business's leads and their conversations; a consumer's message or phone opt-in/out. */
export async function leadCommand(leads: LeadService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, id] = args;
  switch (sub) {
    case 'list':
      return leads.list(need(id, 'business id'));
    case 'show':
      return leads.get(need(id, 'lead id'));
    case 'say':
      return leads.consumerSays(need(id, 'lead id'), flags.text);
    case 'opt-in':
    case 'opt-out': {
      const lead = (await leads.get(need(id, 'lead id'))).lead;
      return leads.emit(lead.business_id, {
        lead_id: lead.id,
        event_type: sub === 'opt-in' ? 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT' : 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT',
        ...(flags.phone ? { phone_number: flags.phone } : {}),
      });
    }
    default:
      throw new UsageError(`unknown lead command ${sub ?? ''}: list, show, say, opt-in or opt-out`);
  }
}
