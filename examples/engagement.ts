// Engagement metrics with the SDK: the OAuth token flow, up to 20 businesses a request, the most
// recent scored week by default.
import { createPbsClient, ok } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function engagement(env: ExampleEnv) {
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const insights = createPbsClient({ baseUrl: env.baseUrl, auth: { oauth: env.oauth } });
  const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 3 } } }));

  const { data } = await ok(
    insights.GET('/v3/businesses/engagement', { params: { query: { business_ids: restaurants.map((r) => r.business_id!) } } }),
  );
  for (const entry of data) {
    const week = entry.metrics[0];
    env.log(
      `${entry.business_id}: ${week ? `week of ${week.start_of_week_date}: engagement ${week.engagement_metric}/20, intent ${week.intent_metric}/10, transaction ${week.transaction_metric}/4` : 'no data'}`,
    );
  }
  return { businesses: data.length, metrics: data.map((entry) => entry.metrics[0]) };
}

runWhenMain(import.meta.url, engagement);
