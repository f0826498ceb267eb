import type { WebhookService } from '../webhooks/webhook-service.js';
import { need, optionalChoice, optionalInt, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { DELIVERY_STATUSES } from '../webhooks/webhook-service.js';

/** `pbs webhook …`: partners' webhook endpoints and deliveries. */
export async function webhookCommand(hooks: WebhookService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a] = args;
  switch (sub) {
    case 'set':
      return hooks.setEndpoint(need(a, 'partner id'), {
        url: need(flags.url, '--url'),
        client_id: need(flags['client-id'], '--client-id'),
        ...(flags.events ? { event_types: flags.events.split(',').map((e) => e.trim()) } : {}),
      });
    case 'show':
      return hooks.getEndpoint(need(a, 'partner id'));
    case 'verify':
      return hooks.verify(need(a, 'partner id'));
    case 'rotate-secret':
      return hooks.rotateSecret(need(a, 'partner id'));
    case 'remove':
      await hooks.removeEndpoint(need(a, 'partner id'));
      return { removed: a };
    case 'deliveries':
      return hooks.deliveries({
        partnerId: flags.partner,
        status: optionalChoice(flags.status, DELIVERY_STATUSES, '--status'),
        limit: optionalInt(flags.limit, '--limit') ?? 50,
      });
    case 'redeliver':
      return hooks.redeliver(need(a, 'delivery id'));
    case 'redeliver-failed': {
      const from = Date.parse(need(flags.from, '--from'));
      const to = Date.parse(need(flags.to, '--to'));
      if (Number.isNaN(from) || Number.isNaN(to)) throw new UsageError('--from and --to must be ISO 8601 times');
      return hooks.redeliverFailed(from, to, flags.partner);
    }
    default:
      throw new UsageError(`unknown webhook command ${sub ?? ''}`);
  }
}

export const webhookCommands: CommandGroupSpec = {
  name: 'webhook',
  summary: 'partners’ webhook endpoints and the deliveries to them',
  commands: [
    {
      use: 'set <partner-id>',
      summary: 'register or change the partner’s endpoint (verified before use)',
      options: [
        ['--url <url>', 'where deliveries go (required)'],
        ['--client-id <id>', 'the partner’s client id, sent with each delivery (required)'],
        ['--events <list>', 'event types, comma-separated (default: all)'],
      ],
    },
    { use: 'show <partner-id>', summary: 'the partner’s endpoint' },
    { use: 'verify <partner-id>', summary: 'verify the endpoint now' },
    { use: 'rotate-secret <partner-id>', summary: 'a new signing secret (printed once)' },
    { use: 'remove <partner-id>', summary: 'remove the endpoint' },
    {
      use: 'deliveries',
      summary: 'deliveries, newest first',
      options: [
        ['--partner <partner-id>', 'only this partner’s'],
        ['--status <status>', 'pending, delivered or failed'],
        ['--limit <n>', 'how many (default 50)'],
      ],
    },
    { use: 'redeliver <delivery-id>', summary: 'send a delivery again' },
    {
      use: 'redeliver-failed',
      summary: 'send every failed delivery of a time range again',
      options: [
        ['--from <iso>', 'from (required)'],
        ['--to <iso>', 'to (required)'],
        ['--partner <partner-id>', 'only this partner’s'],
      ],
    },
  ],
};
