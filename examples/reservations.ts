// Reservations end to end with the SDK: search with availability, openings, a 5-minute hold, the
// reservation (with an Idempotency-Key, so a retry cannot book twice), its status, and cancel.
import { createPbsClient, formBody, isPbsError, ok } from '@pbs/sdk';
import { addDays, runWhenMain, type ExampleEnv } from './support.js';

export async function reservations(env: ExampleEnv) {
  const pbs = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const date = addDays(new Date().toISOString(), 3);

  const found = await ok(
    pbs.GET('/v3/businesses/search', {
      params: {
        query: {
          location: 'San Francisco',
          attributes: ['reservation'],
          reservation_date: date,
          reservation_time: '19:00',
          reservation_covers: 2,
          limit: 10,
        },
      },
    }),
  );
  const restaurant = found.businesses.find((b) => (b.data?.reservation_openings?.length ?? 0) > 0);
  if (!restaurant) throw new Error(`no restaurant with openings on ${date}`);
  const time = restaurant.data!.reservation_openings![0];
  env.log(`${restaurant.name}: openings around 19:00 on ${date}, first ${time}`);

  const openings = await ok(
    pbs.GET('/v3/bookings/{business_id}/openings', { params: { path: { business_id: restaurant.id }, query: { date, time, covers: 2 } } }),
  );
  env.log(`openings on ${openings.reservation_times.length} days`);

  const form = { date, time, covers: 2, unique_id: 'sdk-example-device' };
  const hold = await ok(
    pbs.POST('/v3/bookings/{business_id}/holds', { params: { path: { business_id: restaurant.id } }, ...formBody(form) }),
  );
  env.log(`held ${hold.hold_id} until ${hold.expires_at}`);

  const guest = { first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550123', email: 'ada@example.com' };
  const reserved = await ok(
    pbs.POST('/v3/bookings/{business_id}/reservations', {
      params: { path: { business_id: restaurant.id } },
      ...formBody({ ...form, ...guest, hold_id: hold.hold_id! }, { 'idempotency-key': `sdk-example-${hold.hold_id}` }),
    }),
  );
  env.log(`reserved ${reserved.reservation_id}: ${reserved.confirmation_url}`);

  const path = { reservation_id: reserved.reservation_id };
  const status = await ok(pbs.GET('/v3/bookings/reservation/{reservation_id}/status', { params: { path } }));
  await ok(pbs.POST('/v3/bookings/reservation/{reservation_id}/cancel', { params: { path } }));
  // The status of a canceled reservation is an error (spec): typed, with the catalogue's code.
  let after = 'active';
  try {
    await pbs.GET('/v3/bookings/reservation/{reservation_id}/status', { params: { path } });
  } catch (error) {
    if (!isPbsError(error, 'RESERVATION_CANCELED')) throw error;
    after = error.code;
  }
  env.log(`status: ${status.active ? 'active' : 'inactive'}; after cancel: ${after}`);
  return { restaurant: restaurant.id, reservation: reserved.reservation_id, activeBefore: status.active, afterCancel: after };
}

runWhenMain(import.meta.url, reservations);
