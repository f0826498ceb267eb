/** Waitlist status reads and joins (a scenario of `npm run bench`, run by bench/run.ts). */
import { generateDemoBusinesses } from '../../src/demo/demo-dataset.js';
import { ADMIN, api, type Figure, measure, METRO, pick, importBusinesses, readPath } from '../harness.js';
import { ALL_DAY } from './scale-out.js';

/**
 * Waitlist: status reads of 100 restaurants with a line (each 10 parties, from the restaurant
 * side), beside raw node:http; then joins at one busy restaurant, each connection sending its
 * own guests (distinct phones), so every join is accepted.
 */
export async function waitlistScenario(name: string, base: string): Promise<Figure[]> {
  const businesses = generateDemoBusinesses(100, 515, [METRO]);
  await importBusinesses(base, businesses);
  const partner = await api(
    base,
    'POST',
    '/admin/v1/partners',
    ADMIN,
    JSON.stringify({ name: 'Waitlist bench', interfaces: ['waitlist'] }),
  );
  const key = (await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' })))
    .api_key as string;
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, businesses.map((b) => b.id).join('\n'), 'text/csv');
  for (const b of businesses) {
    await api(
      base,
      'PUT',
      `/admin/v1/businesses/${b.id}/waitlist`,
      ADMIN,
      JSON.stringify({ hours: ALL_DAY, max_party_size: 20, auto_advance: false }),
    );
    for (let i = 0; i < 10; i++)
      await api(base, 'POST', `/admin/v1/businesses/${b.id}/waitlist/walk-ins`, ADMIN, JSON.stringify({ party_size: 1 + (i % 8) }));
  }
  const statusRequest = () => ({ method: 'GET' as const, path: `/v3/businesses/${pick(businesses).id}/waitlist/status` });
  const reads = await readPath(`waitlist status, 100 restaurants (${name})`, {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    requests: [statusRequest()],
    setupClient: (client) => client.setRequests(Array.from({ length: 500 }, statusRequest)),
  });
  const busy = businesses[0].id;
  let connection = 0;
  const joins = await measure(`waitlist joins, one restaurant (${name})`, {
    url: base,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', path: `/v3/businesses/${busy}/waitlist/visits`, body: '{}' }],
    setupClient: (client) => {
      const c = ++connection;
      client.setRequests(
        Array.from({ length: 2000 }, (_, i) => ({
          method: 'POST' as const,
          path: `/v3/businesses/${busy}/waitlist/visits`,
          body: JSON.stringify({ phone: `+1${3_000_000_000 + c * 100_000 + i}`, party_size: 1 + (i % 6), name: `Guest ${i}` }),
        })),
      );
    },
  });
  return [reads, joins];
}
