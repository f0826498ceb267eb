/** Private reviews and engagement reads, through the OAuth token flow (a scenario of `npm run bench`, run by bench/run.ts). */
import { generateDemoBusinesses, seededRandom } from '../../src/demo/demo-dataset.js';
import { ADMIN, api, type Figure, METRO, pick, importBusinesses, readPath } from '../harness.js';

/** A partner with `interfaces`, linked to `ids`, and its OAuth access token (reviews and engagement take the token flow). */
export async function tokenPartner(base: string, name: string, interfaces: string[], ids: string[]): Promise<string> {
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name, interfaces }));
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, ids.join('\n'), 'text/csv');
  const client = await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'oauth_client' }));
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
  const token = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}

/**
 * Private reviews: one business with 1,000 reviews (a fifth also in French, a third answered),
 * read page by page (20 a page, every offset, English and French), beside raw node:http and raw
 * node:http answering as many bytes.
 */
export async function reviewsScenario(name: string, base: string): Promise<Figure> {
  const business = { ...generateDemoBusinesses(1, 616, [METRO])[0], alias: 'reviewed-bench-business' };
  await api(base, 'POST', '/admin/v1/businesses/import', ADMIN, JSON.stringify(business), 'application/x-ndjson');
  const random = seededRandom(7);
  const start = Date.parse('2030-01-01T00:00:00Z');
  const reviews = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({
      business_id: business.id,
      id: `bench-review-${i}`,
      rating: 1 + Math.floor(random() * 5),
      text:
        i % 5 === 0
          ? { en_US: `Review ${i}: ${'good food '.repeat(30)}`, fr_FR: `Avis ${i} : ${'bonne cuisine '.repeat(30)}` }
          : `Review ${i}: ${'good food '.repeat(30)}`,
      user: { name: `Guest Number${i}`, image_url: `https://img.example/u/${i}.jpg` },
      time_created: new Date(start + i * 3_600_000).toISOString(),
      ...(i % 3 === 0 ? { public_response: { text: 'Thank you!', business_user: { name: 'Owner', role: 'OWNER' } } } : {}),
    }),
  );
  await api(base, 'POST', '/admin/v1/reviews/import?notify=false', ADMIN, reviews.join('\n'), 'application/x-ndjson');
  const token = await tokenPartner(base, 'Reviews bench', ['private_reviews'], [business.id]);
  const pages = Array.from({ length: 50 }, (_, page) => ({
    method: 'GET' as const,
    path: `/v3/private/businesses/${business.id}/reviews?limit=20&offset=${page * 20}`,
  }));
  const french = Array.from({ length: 10 }, (_, page) => ({
    method: 'GET' as const,
    path: `/v3/private/businesses/${business.id}/reviews?locale=fr_FR&offset=${page * 20}`,
  }));
  const requests = [...pages, ...french];
  const sample = Array.from({ length: 600 }, () => pick(requests));
  return sampledRead(`private reviews, a business with 1,000 reviews (${name})`, base, token, sample);
}

/**
 * Engagement reads: 1,000 businesses with 4 scored weeks, 20 random businesses per request (a
 * quarter by alias), the default week or the four weeks, beside raw node:http and raw node:http
 * answering as many bytes (the answers are 2–8 kB).
 */
export async function engagementScenario(name: string, base: string): Promise<Figure> {
  const businesses = generateDemoBusinesses(1000, 717, [METRO]).map((b, i) => ({ ...b, alias: `engagement-${i}` }));
  await importBusinesses(base, businesses);
  const random = seededRandom(8);
  const weeks = ['2031-04-07', '2031-04-14', '2031-04-21', '2031-04-28'];
  const lines = weeks.flatMap((week) =>
    businesses.map((b) =>
      JSON.stringify({
        business_id: b.id,
        week,
        page_views: Math.floor(random() * 2000),
        website_clicks: Math.floor(random() * 50),
        calls_and_messages: Math.floor(random() * 20),
        transactions: Math.floor(random() * 5),
      }),
    ),
  );
  await api(base, 'POST', '/admin/v1/engagement/activity', ADMIN, lines.join('\n'), 'application/x-ndjson');
  // The server's task scores the four weeks.
  for (let i = 0; ; i++) {
    const { weeks: state } = await api(base, 'GET', '/admin/v1/engagement/weeks', ADMIN);
    if (state.length === weeks.length && state.every((w: { scored: boolean }) => w.scored)) break;
    if (i > 600) throw new Error('engagement weeks were not scored within a minute');
    await new Promise((r) => setTimeout(r, 100));
  }
  const token = await tokenPartner(
    base,
    'Engagement bench',
    ['engagement'],
    businesses.map((b) => b.id),
  );
  const request = () => {
    const ids = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? pick(businesses).alias : pick(businesses).id));
    const range = random() < 0.5 ? '' : `&date_range_start=${weeks[0]}&date_range_end=${weeks[3]}`;
    return { method: 'GET' as const, path: `/v3/businesses/engagement?business_ids=${ids.join(',')}${range}` };
  };
  const sample = Array.from({ length: 500 }, request);
  return sampledRead(`engagement, 20 businesses a request (${name})`, base, token, sample);
}

/** A partner read over a sample of requests (each connection cycles through them, with the bearer token): a read path. */
function sampledRead(label: string, base: string, token: string, sample: Array<{ method: 'GET'; path: string }>): Promise<Figure> {
  return readPath(label, {
    url: base,
    headers: { authorization: `Bearer ${token}` },
    requests: [sample[0]],
    setupClient: (client) => client.setRequests(sample),
  });
}
