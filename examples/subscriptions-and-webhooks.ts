// Subscriptions and webhooks with the SDK: a receiver that answers pbs's URL verification and
// checks every delivery's signature (verifyWebhook), a WEBHOOK subscription for a business, and a
// lead event for it delivered to the receiver. Also the listing-management view (HTTP Basic).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPbsClient, ok, verificationAnswer, verifyWebhook, type WebhookMessage } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function subscriptionsAndWebhooks(env: ExampleEnv) {
  const operator = createPbsClient({ baseUrl: env.baseUrl, auth: { adminToken: env.adminToken } });
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const ingestion = createPbsClient({ baseUrl: env.baseUrl, auth: { basic: env.basic } });

  // The partner's receiver, on loopback (allowed in sandbox mode).
  let secret = '';
  const received: Array<WebhookMessage & { webhookId: string }> = [];
  let delivered: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (delivered = resolve));
  const receiver = http.createServer((req, res) => {
    const challenge = verificationAnswer(req.url ?? '/');
    if (req.method === 'GET' && challenge)
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(challenge));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      try {
        received.push(verifyWebhook({ secret, body, headers: req.headers, toleranceSeconds: 365 * 86_400 }));
        res.writeHead(204).end();
        delivered();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    // The operator registers and verifies the partner's URL (partners cannot).
    const endpoint = (await ok(
      operator.PUT('/admin/v1/partners/{partner_id}/webhook', {
        params: { path: { partner_id: env.partnerId } },
        body: { url, client_id: 'sdk-example' },
      }),
    )) as unknown as {
      secret: string;
    };
    secret = endpoint.secret;
    await ok(operator.POST('/admin/v1/partners/{partner_id}/webhook/verify', { params: { path: { partner_id: env.partnerId } } }));

    const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 1 } } }));
    const business = restaurants[0].business_id!;
    await partner.POST('/v3/businesses/subscriptions', { body: { subscription_types: ['WEBHOOK'], business_ids: [business] } });
    // The subscription is applied by a background task: wait until it is listed.
    for (let i = 0; ; i++) {
      const listed = await ok(
        partner.GET('/v3/businesses/subscriptions', { params: { query: { subscription_type: 'WEBHOOK', limit: 1000 } } }),
      );
      if ((listed.subscriptions ?? []).some((s) => s.business_id === business)) break;
      if (i > 100) throw new Error('the subscription was not applied');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listing = await ok(ingestion.GET('/listing_management/businesses/v1'));
    env.log(`subscribed to ${business}; listing management shows ${listing.total} business(es)`);

    await operator.POST('/admin/v1/businesses/{business_id}/events/leads', { params: { path: { business_id: business } }, body: {} });
    await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error('no delivery within 30 s')), 30_000))]);
    const message = received[0];
    env.log(
      `delivery ${message.webhookId}, signature ok: ${message.data.updates.map((u) => u.event_type).join(',')} for ${message.data.id}`,
    );
    return { business, webhookId: message.webhookId, events: message.data.updates.map((u) => u.event_type), listingTotal: listing.total };
  } finally {
    receiver.close();
  }
}

runWhenMain(import.meta.url, subscriptionsAndWebhooks);
