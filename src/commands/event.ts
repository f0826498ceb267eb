import type { WebhookService } from '../webhooks/webhook-service.js';
import { need, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';

/** A lead event for a business, with the lead behind it (the leads family's `emit`). */
export type EmitLead = (businessIdOrAlias: string, input: { lead_id?: string; text?: string }) => Promise<unknown>;

/** `pbs event …`: events the operator raises by hand (leads, licences, ingestion). */
export async function eventCommand(
  hooks: WebhookService,
  emitLead: EmitLead,
  args: string[],
  flags: Record<string, string>,
): Promise<unknown> {
  const [kind, business] = args;
  const id = need(business, 'business id');
  switch (kind) {
    case 'lead':
      return emitLead(id, { lead_id: flags['lead-id'], ...(flags.text === undefined ? {} : { text: flags.text }) });
    case 'license': {
      const status = flags.status ?? 'VERIFIED';
      if (status !== 'VERIFIED' && status !== 'REJECTED' && status !== 'PENDING')
        throw new UsageError('--status must be VERIFIED, REJECTED or PENDING');
      return hooks.emitLicense(id, {
        license_verification_status: status,
        license_verification_failure_reason: flags.reason,
        license_number: need(flags['license-number'], '--license-number'),
        license_expiry_date: flags.expiry,
        license_trade: flags.trade,
        license_issuing_agency: flags.agency,
      });
    }
    case 'ingestion':
      return hooks.emitIngestion(id, { job_id: need(flags['job-id'], '--job-id'), status: flags.status ?? 'COMPLETED' });
    default:
      throw new UsageError(`unknown event kind ${kind ?? ''}`);
  }
}

export const eventCommands: CommandGroupSpec = {
  name: 'event',
  summary: 'send a webhook event as the platform would (sandbox)',
  commands: [
    {
      use: 'lead <business-id>',
      summary: 'a new lead (a consumer’s request) for the business',
      options: [
        ['--lead-id <id>', 'the lead’s id (default: a new one)'],
        ['--text <text>', 'what the consumer wrote'],
      ],
    },
    {
      use: 'license <business-id>',
      summary: 'a license verification result',
      options: [
        ['--license-number <number>', 'the license (required)'],
        ['--status <status>', 'VERIFIED (default) or a failure status'],
        ['--reason <text>', 'why verification failed'],
        ['--expiry <date>', 'the license’s expiry date'],
        ['--trade <trade>', 'the licensed trade'],
        ['--agency <agency>', 'the issuing agency'],
      ],
    },
    {
      use: 'ingestion <business-id>',
      summary: 'a data ingestion job’s result',
      options: [
        ['--job-id <id>', 'the job (required)'],
        ['--status <status>', 'COMPLETED (default) or another status'],
      ],
    },
  ],
};
