import type { LeadService } from '../leads/lead-service.js';
import { need, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';

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

export const leadCommands: CommandGroupSpec = {
  name: 'lead',
  summary: 'leads: a business’s conversations with consumers, and the consumer’s side of them (sandbox)',
  commands: [
    { use: 'list <business-id>', summary: 'the business’s leads' },
    { use: 'show <lead-id>', summary: 'one lead with its events' },
    { use: 'say <lead-id>', summary: 'the consumer writes to the business', options: [['--text <text>', 'what they write']] },
    { use: 'opt-in <lead-id>', summary: 'the consumer shares their phone number', options: [['--phone <number>', 'e.g. +14155550123']] },
    { use: 'opt-out <lead-id>', summary: 'the consumer withdraws their phone number' },
  ],
};
