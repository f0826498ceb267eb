// Finding businesses with the SDK: a search read word by word, then Business Match, which turns
// a name and an address a partner already has into the business's id, and the business's
// public record read by that id (any partner interface's API key takes these).
import { createPbsClient, ok } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function businessMatch(env: ExampleEnv) {
  const pbs = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });

  const found = await ok(
    pbs.GET('/v3/businesses/search', { params: { query: { location: 'San Francisco', term: 'italian food', limit: 3 } } }),
  );
  env.log(`"italian food" in San Francisco: ${found.total} found, first ${found.businesses[0]?.name}`);

  // Say the partner's own records hold this restaurant's name and street: Business Match finds its id.
  const known = found.businesses[0];
  const { location } = known;
  const matched = await ok(
    pbs.GET('/v3/businesses/matches', {
      params: {
        query: {
          name: known.name,
          address1: location.address1 ?? '',
          city: location.city!,
          state: location.state!,
          country: location.country!,
          match_threshold: 'strict',
        },
      },
    }),
  );
  const id = matched.businesses[0]?.id;
  if (!id) throw new Error(`Business Match found nothing for ${known.name}`);
  env.log(`matched ${known.name}, ${location.address1}: ${id}`);

  const details = await ok(pbs.GET('/v3/businesses/{business_id_or_alias}', { params: { path: { business_id_or_alias: id } } }));
  const openNow = details.hours?.[0]?.is_open_now ?? false;
  env.log(`${details.name}: ${details.rating} stars from ${details.review_count} reviews, ${openNow ? 'open' : 'closed'} now`);
  return { found: found.total, matched: id, sameAsSearched: id === known.id, openNow, photos: details.photos?.length ?? 0 };
}

runWhenMain(import.meta.url, businessMatch);
