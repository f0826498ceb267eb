import type { WebhookService } from '../webhooks/webhook-service.js';
import { need, optionalChoice, optionalInt, UsageError } from './args.js';
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
