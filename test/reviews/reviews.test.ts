import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localeFromAcceptLanguage } from '../../src/reviews/locales.js';
import { displayName } from '../../src/reviews/review-views.js';
import {
  admin,
  answered,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  partnerClient,
  sampleBusiness,
  startPbs,
  startWithOAuthPartner,
  T0,
  type Harness,
  type TestPartner,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/** Issue 16: private reviews read with an OAuth token, the operator's reviews, and review webhooks. */
describe.each(dialects)('private reviews on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let token: string;
  let n = 0;

  beforeAll(async () => {
    ({ h, p, token } = await startWithOAuthPartner(dialect, 'private_reviews', 'Review Partner'));
  });
  afterAll(() => h.close());

  /** A business linked to the partner. */
  const business = async (overrides: Record<string, unknown> = {}) =>
    (await linkedBusiness(h.url, [p.partner.id], { name: `Reviewed ${++n}`, ...overrides })).id;
  const addReview = async (businessId: string, review: Record<string, unknown>) => {
    const r = await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/reviews`, {
      json: { rating: 5, text: 'Great.', user: { name: 'Jane Doe' }, ...review },
    });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };
  const read = (businessId: string, query = '', headers: Record<string, string> = {}) =>
    call(h.url, 'GET', `/v3/private/businesses/${businessId}/reviews${query}`, { token, headers });

  it('answers every field of the spec table, newest first, times in Pacific, the response complete', async () => {
    const id = await business({ alias: `reviewed-place-${dialect}` });
    const older = await addReview(id, {
      id: 'rev-older',
      rating: 4,
      text: 'Lovely pasta, slow service.',
      user: { id: 'user-1', name: 'Jane Q Doe', image_url: 'https://img.example/jane.jpg' },
      time_created: '2031-01-15T20:30:05Z',
      public_response: {
        text: 'Thanks, Jane!',
        time_created: '2031-01-16T18:00:00Z',
        business_user: { name: 'Support Team', role: 'CUSTOMER SERVICE', photo_url: 'https://img.example/team.jpg' },
      },
    });
    expect(older.public_response.business_user.role).toBe('CUSTOMER_SERVICE');
    await addReview(id, { id: 'rev-newer', rating: 2, text: 'Cold soup.', user: { name: 'Bob' }, time_created: '2031-04-01 12:00:00' });

    // As a partner's code reads it: the typed SDK with the OAuth client flow.
    const client = partnerClient(h.url, p, 'oauth');
    const r = await answered(client.GET('/v3/private/businesses/{business_id}/reviews', { params: { path: { business_id: id } } }));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-language')).toBe('en_US');
    expect(r.body.total).toBe(2);
    expect(r.body.possible_languages).toEqual(['en']);
    // The flat list, the default here (PBS_REVIEWS_NESTED is off); the type allows both shapes.
    const reviews = Array.isArray(r.body.reviews) ? r.body.reviews : r.body.reviews.review;
    expect(Array.isArray(r.body.reviews)).toBe(true);
    expect(reviews.map((x) => x.id)).toEqual(['rev-newer', 'rev-older']);
    expect(reviews[0]).toEqual({
      id: 'rev-newer',
      rating: 2,
      text: 'Cold soup.',
      // Given in the partner form (Pacific), answered as given.
      time_created: '2031-04-01 12:00:00',
      url: `${h.pbs.ctx.config.publicUrl}/biz/reviewed-place-${dialect}?hrid=rev-newer`,
      user: { id: expect.any(String), name: 'Bob', image_url: '' },
      public_response: null,
    });
    expect(reviews[1]).toEqual({
      id: 'rev-older',
      rating: 4,
      text: 'Lovely pasta, slow service.',
      // 20:30:05 UTC in January is 12:30:05 PST.
      time_created: '2031-01-15 12:30:05',
      url: expect.stringContaining('hrid=rev-older'),
      user: { id: 'user-1', name: 'Jane D.', image_url: 'https://img.example/jane.jpg' },
      public_response: {
        text: 'Thanks, Jane!',
        time_created: '2031-01-16T10:00:00-08:00',
        business_user: { name: 'Support Team', role: 'CUSTOMER_SERVICE', photo_url: 'https://img.example/team.jpg' },
      },
    });
  });

  it('picks the locale: the locale parameter wins over Accept-Language, an unsupported one is 400', async () => {
    const id = await business();
    await addReview(id, {
      id: `multi-${dialect}`,
      text: { en_US: 'Very good.', fr_FR: 'Très bon.' },
      time_created: '2031-02-01T00:00:00Z',
    });
    await addReview(id, { id: `fr-only-${dialect}`, text: 'Excellent.', locale: 'fr_CA', time_created: '2031-03-01T00:00:00Z' });
    await addReview(id, { id: `de-only-${dialect}`, text: 'Sehr gut.', locale: 'de_DE', time_created: '2031-03-02T00:00:00Z' });

    const english = await read(id);
    expect(english.body.reviews.map((x: { text: string }) => x.text)).toEqual(['Very good.']);
    expect(english.body.possible_languages).toEqual(['de', 'en', 'fr']);

    const french = await read(id, '', { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    expect(french.headers.get('content-language')).toBe('fr_CA');
    expect(french.body.reviews.map((x: { text: string }) => x.text)).toEqual(['Excellent.', 'Très bon.']);
    expect(french.body.total).toBe(2);

    // locale wins over the header.
    const german = await read(id, '?locale=de_DE', { 'accept-language': 'fr-FR' });
    expect(german.headers.get('content-language')).toBe('de_DE');
    expect(german.body.reviews.map((x: { text: string }) => x.text)).toEqual(['Sehr gut.']);

    // An unusable header falls back to en_US; an unsupported locale parameter is refused.
    expect((await read(id, '', { 'accept-language': 'xx-YY, *' })).headers.get('content-language')).toBe('en_US');
    for (const bad of ['xx_XX', 'en-US', 'EN_us', 'en_ZZ', '']) {
      if (bad === '') continue;
      const r = await read(id, `?locale=${encodeURIComponent(bad)}`);
      expectCode(r, 400, 'VALIDATION_ERROR');
      expect(r.body.error.field).toBe('locale');
    }
    expect(localeFromAcceptLanguage('de;q=0.2, ja-JP;q=0.8')).toBe('ja_JP');
    expect(localeFromAcceptLanguage('pt')).toBe('pt_BR');
    expect(localeFromAcceptLanguage(undefined)).toBeUndefined();
  });

  it('pages with limit and offset and a total; the nested form on request or by configuration', async () => {
    const id = await business();
    for (let i = 0; i < 25; i++)
      await addReview(id, {
        id: `page-${dialect}-${String(i).padStart(2, '0')}`,
        time_created: new Date(T0 - (25 - i) * 3600_000).toISOString(),
      });
    const first = await read(id);
    expect(first.body.total).toBe(25);
    expect(first.body.reviews).toHaveLength(20);
    expect(first.body.reviews[0].id).toBe(`page-${dialect}-24`);
    const second = await read(id, '?limit=10&offset=20');
    expect(second.body.reviews.map((x: { id: string }) => x.id)).toEqual([4, 3, 2, 1, 0].map((i) => `page-${dialect}-0${i}`));
    expect(second.body.total).toBe(25);
    for (const bad of ['limit=0', 'limit=51', 'limit=abc', 'offset=-1', 'offset=1.5', 'nested=maybe'])
      expectCode(await read(id, `?${bad}`), 400, 'VALIDATION_ERROR');

    const nested = await read(id, '?nested=true&limit=2');
    expect(Array.isArray(nested.body.reviews)).toBe(false);
    expect(nested.body.reviews.review).toHaveLength(2);
    expect(nested.body.total).toBe(25);

    const sample = await startPbs(dialect, { env: { PBS_REVIEWS_NESTED: 'true' } });
    try {
      const q = await createPartner(sample.url, ['private_reviews'], 'Nested');
      const b = (await admin(sample.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness() })).body.id;
      await admin(sample.url, 'PUT', `/admin/v1/partners/${q.partner.id}/businesses/${b}`);
      await admin(sample.url, 'POST', `/admin/v1/businesses/${b}/reviews`, { json: { rating: 3, text: 'Fine.', user: { name: 'Al' } } });
      const byDefault = await call(sample.url, 'GET', `/v3/private/businesses/${b}/reviews`, { token: q.apiKey.api_key });
      expect(byDefault.body.reviews.review).toHaveLength(1);
      expect(
        (await call(sample.url, 'GET', `/v3/private/businesses/${b}/reviews?nested=false`, { token: q.apiKey.api_key })).body.reviews,
      ).toHaveLength(1);
    } finally {
      await sample.close();
    }
  });

  it('needs the private_reviews interface and a linked business; unknown businesses are 404', async () => {
    const id = await business();
    const unlinked = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Not ours' }) })).body.id;
    expectCode(await read(unlinked), 403, 'AUTHORIZATION_ERROR');
    expectCode(await read('no-such-business'), 404, 'BUSINESS_NOT_FOUND');
    const withoutInterface = await createPartner(h.url, ['reservations'], 'No reviews');
    await admin(h.url, 'PUT', `/admin/v1/partners/${withoutInterface.partner.id}/businesses/${id}`);
    const refused = await call(h.url, 'GET', `/v3/private/businesses/${id}/reviews`, { token: withoutInterface.apiKey.api_key });
    expectCode(refused, 403, 'PARTNER_ENDPOINT_DISABLED');
    expect((await call(h.url, 'GET', `/v3/private/businesses/${id}/reviews`)).status).toBe(401);
    expectCode(await call(h.url, 'GET', `/v3/private/businesses/${id}/reviews`, { token: 'not-a-token' }), 401, 'TOKEN_INVALID');
    // The API key works as well as the token (docs/contract/reviews-and-engagement.md §7.3); the alias names the business too.
    expect((await call(h.url, 'GET', `/v3/private/businesses/${id}/reviews`, { token: p.apiKey.api_key })).status).toBe(200);
  });

  it('edits, responds, removes; checks every input; a business with no reviews answers an empty list', async () => {
    const id = await business();
    expect((await read(id)).body).toEqual({ reviews: [], total: 0, possible_languages: [] });
    const review = await addReview(id, { text: 'Okay.' });
    const edited = await admin(h.url, 'PATCH', `/admin/v1/reviews/${review.id}`, {
      json: { rating: 1, text: { en_GB: 'Rubbish, actually.' } },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ rating: 1, locale: 'en_GB', text: { en_GB: 'Rubbish, actually.' } });
    expect((await read(id)).body.reviews[0]).toMatchObject({ rating: 1, text: 'Rubbish, actually.' });

    const responded = await admin(h.url, 'PUT', `/admin/v1/reviews/${review.id}/public-response`, {
      json: { text: 'Sorry!', business_user: { name: 'Owner', role: 'owner' } },
    });
    expect(responded.status, responded.text).toBe(200);
    expect((await read(id)).body.reviews[0].public_response).toEqual({
      text: 'Sorry!',
      time_created: '2031-05-05T09:00:00-07:00',
      business_user: { name: 'Owner', role: 'OWNER', photo_url: '' },
    });
    expect((await admin(h.url, 'DELETE', `/admin/v1/reviews/${review.id}/public-response`)).status).toBe(200);
    expect((await read(id)).body.reviews[0].public_response).toBeNull();

    const bad = [
      { rating: 6, text: 'x', user: { name: 'A' } },
      { rating: 0, text: 'x', user: { name: 'A' } },
      { rating: 3, text: '', user: { name: 'A' } },
      { rating: 3, text: 'x'.repeat(20_001), user: { name: 'A' } },
      { rating: 3, text: { en_US: 'a', en_GB: 'b' }, user: { name: 'A' } },
      { rating: 3, text: { xx_XX: 'a' }, user: { name: 'A' } },
      { rating: 3, text: 'x', locale: 'xx_XX', user: { name: 'A' } },
      { rating: 3, text: 'x', user: { name: '' } },
      { rating: 3, text: 'x', user: { name: 'A'.repeat(101) } },
      { rating: 3, text: 'x', user: { name: 'A' }, time_created: 'yesterday' },
      { rating: 3, text: 'x', user: { name: 'A' }, time_created: '2031-01-01T00:00:00' },
      { rating: 3, text: 'x', user: { name: 'A' }, public_response: { text: 'x', business_user: { name: 'B', role: 'CHEF' } } },
      { rating: 3, text: 'x', user: { name: 'A' }, extra: true },
      { rating: 3, text: 'x', user: { name: 'A' }, id: 'has spaces' },
    ];
    for (const body of bad) {
      const r = await admin(h.url, 'POST', `/admin/v1/businesses/${id}/reviews`, { json: body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expectCode(
      await admin(h.url, 'POST', `/admin/v1/businesses/${id}/reviews`, {
        json: { id: review.id, rating: 3, text: 'x', user: { name: 'A' } },
      }),
      409,
      'CONFLICT',
    );
    expectCode(
      await admin(h.url, 'POST', '/admin/v1/businesses/nope/reviews', { json: { rating: 3, text: 'x', user: { name: 'A' } } }),
      404,
      'BUSINESS_NOT_FOUND',
    );
    expectCode(await admin(h.url, 'PATCH', '/admin/v1/reviews/nope', { json: { rating: 3 } }), 404, 'NOT_FOUND');
    expectCode(await admin(h.url, 'PATCH', `/admin/v1/reviews/${review.id}`, { json: {} }), 400, 'VALIDATION_ERROR');
    expectCode(await admin(h.url, 'PATCH', `/admin/v1/reviews/${review.id}`, { json: { locale: 'fr_FR' } }), 400, 'VALIDATION_ERROR');
    expect((await admin(h.url, 'GET', `/admin/v1/reviews/${review.id}`)).body.rating).toBe(1);

    expect((await admin(h.url, 'DELETE', `/admin/v1/reviews/${review.id}`)).status).toBe(204);
    expectCode(await admin(h.url, 'DELETE', `/admin/v1/reviews/${review.id}`), 404, 'NOT_FOUND');
    expect((await read(id)).body.total).toBe(0);
  });

  it('imports JSON lines all checked first, replacing by id, and lists them for the operator', async () => {
    const id = await business({ alias: `import-place-${dialect}` });
    const lines = [
      {
        business_id: `import-place-${dialect}`,
        id: `imp-1-${dialect}`,
        rating: 5,
        text: 'One',
        user: { name: 'A B' },
        time_created: '2031-01-01T00:00:00Z',
      },
      { business_id: id, id: `imp-2-${dialect}`, rating: 4, text: 'Two', user: { name: 'C D' }, time_created: '2031-01-02T00:00:00Z' },
    ];
    const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');
    const bad = await admin(h.url, 'POST', '/admin/v1/reviews/import', {
      body: `${ndjson(lines)}\n{"business_id":"${id}","rating":9}`,
      contentType: 'application/x-ndjson',
    });
    expectCode(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.error.description).toMatch(/^line 3/);
    expect((await read(id)).body.total).toBe(0);
    const unknownBusiness = await admin(h.url, 'POST', '/admin/v1/reviews/import', {
      body: ndjson([{ ...lines[0], business_id: 'nope' }]),
      contentType: 'application/x-ndjson',
    });
    expectCode(unknownBusiness, 400, 'VALIDATION_ERROR');

    const ok = await admin(h.url, 'POST', '/admin/v1/reviews/import', { body: ndjson(lines), contentType: 'application/x-ndjson' });
    expect(ok.body).toEqual({ imported: 2, created: 2, updated: 0 });
    const again = await admin(h.url, 'POST', '/admin/v1/reviews/import?notify=false', {
      body: ndjson([{ ...lines[1], rating: 1 }]),
      contentType: 'application/x-ndjson',
    });
    expect(again.body).toEqual({ imported: 1, created: 0, updated: 1 });
    const listed = await admin(h.url, 'GET', `/admin/v1/businesses/${id}/reviews`);
    expect(listed.body.total).toBe(2);
    expect(listed.body.reviews.map((r: { id: string; rating: number }) => [r.id, r.rating])).toEqual([
      [`imp-2-${dialect}`, 1],
      [`imp-1-${dialect}`, 5],
    ]);
    expect(listed.body.reviews[0]).toMatchObject({
      business_id: id,
      locale: 'en_US',
      text: { en_US: 'Two' },
      user: { name: 'C D' },
      time_created: '2031-01-02T00:00:00+00:00',
    });
  });

  it('delivers new, edited and removed reviews to subscribed partners as the docs/contract/webhooks.md §6.3 events; responses send none', async () => {
    const id = await business();
    const hooked = await createPartner(h.url, ['business_subscriptions', 'webhooks'], 'Review hooks');
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    const url = await receiver.start();
    try {
      await admin(h.url, 'PUT', `/admin/v1/partners/${hooked.partner.id}/webhook`, { json: { url, client_id: 'reviews-client' } });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${hooked.partner.id}/webhook/verify`)).body.status).toBe('verified');
      await admin(h.url, 'PUT', `/admin/v1/partners/${hooked.partner.id}/businesses/${id}`);
      expect(
        (
          await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
            token: hooked.apiKey.api_key,
            json: { business_ids: [id] },
          })
        ).status,
      ).toBe(200);

      const review = await addReview(id, { rating: 4, text: 'Nice.', locale: 'fr_FR', user: { id: 'reviewer-7', name: 'Léa M' } });
      await admin(h.url, 'PATCH', `/admin/v1/reviews/${review.id}`, { json: { rating: 3 } });
      await admin(h.url, 'PUT', `/admin/v1/reviews/${review.id}/public-response`, {
        json: { text: 'Merci', business_user: { name: 'Owner', role: 'OWNER' } },
      });
      await admin(h.url, 'DELETE', `/admin/v1/reviews/${review.id}`);
      await h.pbs.deliverWebhooks();
      const bodies = receiver.posts().map((post) => JSON.parse(post.body));
      // Deliveries may arrive in any order (spec "Events"); the three updates, in the order made:
      const order = ['NEW_REVIEW_EVENT', 'REVIEW_EDITED_EVENT', 'REVIEW_REMOVED_EVENT'];
      const updates = bodies.flatMap((b) => b.data.updates).sort((a, b) => order.indexOf(a.event_type) - order.indexOf(b.event_type));
      expect(bodies).toHaveLength(3);
      expect(updates).toEqual([
        { event_type: 'NEW_REVIEW_EVENT', review_id: review.id, rating: 4, language: 'fr', user_id: 'reviewer-7' },
        { event_type: 'REVIEW_EDITED_EVENT', review_id: review.id, user_id: 'reviewer-7' },
        { event_type: 'REVIEW_REMOVED_EVENT', review_id: review.id, user_id: 'reviewer-7' },
      ]);
      for (const body of bodies) {
        expect(body).toMatchObject({ object: 'business', data: { id } });
        // Review webhooks: a naive ISO time with microseconds (docs/contract/webhooks.md §6.2).
        expect(body.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
      }
    } finally {
      await receiver.stop();
    }
  });
});

describe('review display rules', () => {
  it('shows the author as first name and last initial', () => {
    expect(displayName('Jane Doe')).toBe('Jane D.');
    expect(displayName('  jane   q   doe ')).toBe('jane D.');
    expect(displayName('Cher')).toBe('Cher');
    expect(displayName('Jane D.')).toBe('Jane D.');
  });
});
