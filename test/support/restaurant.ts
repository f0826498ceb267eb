import { admin, call, sampleBusiness } from './harness.js';

/**
 * A restaurant with a known inventory. With the harness clock at T0 (Monday 2031-05-05 09:00 in
 * San Francisco): seatings 17:00–21:00 every day, closed 2031-05-08, a card for parties of 7+
 * and on 2031-05-10, cancellation up to 2 hours before, bookable 30 days ahead.
 */
export const restaurantSettings = {
  party_size: { min: 1, max: 8 },
  max_future_days: 30,
  min_notice_minutes: 60,
  service_hours: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '17:00', last_seating: '21:00' })),
  closed_dates: ['2031-05-08'],
  tables: [
    { name: 'two', min_party: 1, max_party: 2 },
    { name: 'four', min_party: 2, max_party: 4 },
    { name: 'eight', min_party: 5, max_party: 8 },
  ],
  turn_times: [
    { max_party: 2, minutes: 90 },
    { max_party: 6, minutes: 120 },
    { max_party: null, minutes: 150 },
  ],
  credit_card: { min_party: 7, dates: ['2031-05-10'] },
  cancellation: { policy: 'Please cancel at least 2 hours ahead.', cutoff_minutes: 120 },
  notes: 'Patio seating is first come, first served.',
  is_editable: false,
};

export async function createRestaurant(base: string, overrides: Record<string, unknown> = {}, name = 'Bistro Test') {
  const business = (
    await admin(base, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name, transactions: ['restaurant_reservation'] }) })
  ).body;
  const settings = await admin(base, 'PUT', `/admin/v1/businesses/${business.id}/reservation-settings`, {
    json: { ...restaurantSettings, ...overrides },
  });
  if (settings.status !== 200) throw new Error(`settings rejected: ${settings.text}`);
  return business as { id: string; alias: string };
}

export const guest = { first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550123', email: 'ada@example.com' };

export function hold(base: string, token: string, businessId: string, form: Record<string, string>) {
  return call(base, 'POST', `/v3/bookings/${businessId}/holds`, { token, form });
}

export function reserve(base: string, token: string, businessId: string, form: Record<string, string>) {
  return call(base, 'POST', `/v3/bookings/${businessId}/reservations`, { token, form: { ...guest, ...form } });
}
