// Private reviews with the SDK: OAuth client credentials (the client fetches the token from
// /oauth2/token and renews it), reviews newest first, by locale.
import { createPbsClient, ok } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function reviews(env: ExampleEnv) {
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const insights = createPbsClient({ baseUrl: env.baseUrl, auth: { oauth: env.oauth } });
  const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 1 } } }));
  const business = restaurants[0].business_id!;

  const { data, response } = await insights.GET('/v3/private/businesses/{business_id}/reviews', {
    params: { path: { business_id: business }, query: { locale: 'en_US', limit: 2 } },
  });
  const page = data!;
  const list = Array.isArray(page.reviews) ? page.reviews : page.reviews.review;
  env.log(
    `${business}: ${page.total} reviews (${response.headers.get('content-language')}); newest ${list[0]?.rating}★ by ${list[0]?.user.name}`,
  );
  return { business, total: page.total, language: response.headers.get('content-language'), newest: list[0] };
}

runWhenMain(import.meta.url, reviews);
