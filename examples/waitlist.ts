// The waitlist with the SDK. The operator's side (a client with the operator token) opens the
// restaurant's line and seats a party at the door; the partner reads the wait, joins the line,
// follows its visit and cancels it.
import { createPbsClient, isPbsError, ok } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function waitlist(env: ExampleEnv) {
  const operator = createPbsClient({ baseUrl: env.baseUrl, auth: { adminToken: env.adminToken } });
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 50 } } }));
  const restaurant = restaurants[restaurants.length - 1].business_id!;

  // The restaurant side: open every day, all day; a party at the door starts a line.
  const hours = [{ open: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '0000', end: '2359' })) }];
  await operator.PUT('/admin/v1/businesses/{business_id}/waitlist', {
    params: { path: { business_id: restaurant } },
    body: { hours, max_party_size: 8 } as never,
  });
  await operator.POST('/admin/v1/businesses/{business_id}/waitlist/walk-ins', {
    params: { path: { business_id: restaurant } },
    body: { party_size: 2 } as never,
  });

  const status = await ok(partner.GET('/v3/businesses/{business_id}/waitlist/status', { params: { path: { business_id: restaurant } } }));
  env.log(`${restaurant}: ${status.state}`);

  const joined = await ok(
    partner.POST('/v3/businesses/{business_id}/waitlist/visits', {
      params: { path: { business_id: restaurant } },
      body: { phone: '+14155550177', party_size: 2, name: 'Ada' },
    }),
  );
  const visit = joined.visit_id!;
  const followed = await ok(partner.GET('/v3/visits/{visit_id}', { params: { path: { visit_id: visit } } }));
  env.log(`visit ${visit}: ${followed.state}, ${followed.parties_ahead} part(ies) ahead`);

  await partner.POST('/v3/visits/{visit_id}/cancel', { params: { path: { visit_id: visit } } });
  let again: string | undefined;
  try {
    await partner.POST('/v3/visits/{visit_id}/cancel', { params: { path: { visit_id: visit } } });
  } catch (error) {
    // Typed errors: the catalogue's code, with the status and request id.
    if (!isPbsError(error, 'VISIT_ALREADY_IN_TERMINAL_STATE')) throw error;
    again = error.code;
  }
  env.log(`canceled; cancelling again: ${again}`);
  return { restaurant, state: status.state, visit, partiesAhead: followed.parties_ahead, cancelAgain: again };
}

runWhenMain(import.meta.url, waitlist);
