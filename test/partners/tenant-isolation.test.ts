import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, startPbs, T0, type Harness } from '../support/harness.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

const DAY = '2031-05-07';

/** Issue 13 §2: one partner's guest ids and tokens never reach another partner's. */
describe.each(dialects)('tenant isolation on %s', (dialect) => {
  let h: Harness;
  let a: Awaited<ReturnType<typeof createPartner>>;
  let b: Awaited<ReturnType<typeof createPartner>>;
  let n = 0;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    a = await createPartner(h.url, ['reservations', 'engagement'], 'A');
    b = await createPartner(h.url, ['reservations'], 'B');
  });
  afterAll(() => h.close());
  beforeEach(() => h.clock.set(T0));

  const slot = (time: string, unique_id: string) => ({ date: DAY, time, covers: '2', unique_id });

  it("a hold by one partner with another partner's guest id leaves that guest's hold alone", async () => {
    const biz = (await createRestaurant(h.url, {}, `Shared ${++n}`)).id;
    const byB = await hold(h.url, b.apiKey.api_key, biz, slot('19:00', 'guest-1'));
    expect(byB.status).toBe(200);
    expect((await hold(h.url, a.apiKey.api_key, biz, slot('20:00', 'guest-1'))).status).toBe(200);
    const reserved = await reserve(h.url, b.apiKey.api_key, biz, { ...slot('19:00', 'guest-1'), hold_id: byB.body.hold_id });
    expect(reserved.status, reserved.text).toBe(200);
  });

  it("one partner's reservation is no duplicate of another partner's guest with the same id", async () => {
    const biz = (await createRestaurant(h.url, {}, `Shared ${++n}`)).id;
    const byB = await hold(h.url, b.apiKey.api_key, biz, slot('19:00', 'guest-2'));
    expect((await reserve(h.url, b.apiKey.api_key, biz, { ...slot('19:00', 'guest-2'), hold_id: byB.body.hold_id })).status).toBe(200);
    const byA = await hold(h.url, a.apiKey.api_key, biz, slot('19:30', 'guest-2'));
    const reserved = await reserve(h.url, a.apiKey.api_key, biz, { ...slot('19:30', 'guest-2'), hold_id: byA.body.hold_id });
    expect(reserved.status, reserved.text).toBe(200);
    // The same partner's guest is still a duplicate.
    const again = await hold(h.url, a.apiKey.api_key, biz, slot('21:00', 'guest-2'));
    const duplicate = await reserve(h.url, a.apiKey.api_key, biz, { ...slot('21:00', 'guest-2'), hold_id: again.body.hold_id });
    expect(duplicate.body.error.code).toBe('DUPLICATE_RESERVATION');
  });

  it("another partner's guest with the same id does not count as free the table that guest holds", async () => {
    const biz = (await createRestaurant(h.url, { tables: [{ name: 'only', min_party: 1, max_party: 2 }] }, `One Table ${++n}`)).id;
    expect((await hold(h.url, a.apiKey.api_key, biz, slot('19:00', 'guest-3'))).status).toBe(200);
    const byB = await hold(h.url, b.apiKey.api_key, biz, slot('19:00', 'guest-3'));
    expect(byB.status).toBe(409);
    expect(byB.body.error.code).toBe('HOLD_SLOT_NOT_AVAILABLE');
  });

  describe('OAuth access tokens', () => {
    const exchange = (secret: string) =>
      call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: a.oauth.client_id, client_secret: secret },
      });
    const works = async (token: string) => (await call(h.url, 'GET', '/v3/businesses/search?location=Nowhere', { token })).status !== 401;

    it('stop working at a rotation without grace, and the new secret gets a new token', async () => {
      const old = (await exchange(a.oauth.client_secret)).body.access_token;
      expect(await works(old)).toBe(true);
      const rotated = (await admin(h.url, 'POST', `/admin/v1/credentials/${a.oauth.id}/rotate`, { json: {} })).body;
      expect(await works(old)).toBe(false);
      const fresh = await exchange(rotated.client_secret);
      expect(fresh.status).toBe(200);
      expect(fresh.body.access_token).not.toBe(old);
      expect(await works(fresh.body.access_token)).toBe(true);
      a.oauth.client_secret = rotated.client_secret;
    });

    it('keep working through a rotation’s grace period, and no longer', async () => {
      const old = (await exchange(a.oauth.client_secret)).body.access_token;
      const rotated = (await admin(h.url, 'POST', `/admin/v1/credentials/${a.oauth.id}/rotate`, { json: { grace_seconds: 60 } })).body;
      expect(await works(old)).toBe(true);
      expect((await exchange(rotated.client_secret)).body.access_token).not.toBe(old);
      h.clock.advance(61_000);
      expect(await works(old)).toBe(false);
      a.oauth.client_secret = rotated.client_secret;
    });

    it('stop working when the client is revoked', async () => {
      const token = (await exchange(a.oauth.client_secret)).body.access_token;
      expect(await works(token)).toBe(true);
      await admin(h.url, 'DELETE', `/admin/v1/credentials/${a.oauth.id}`);
      expect(await works(token)).toBe(false);
      expect((await exchange(a.oauth.client_secret)).status).toBe(401);
    });
  });
});
