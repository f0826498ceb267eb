import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_FIELDS, LEVELS, levelsOf, scoreWeek, type Activity } from '../../src/engagement/scoring.js';
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
  type Harness,
  type TestPartner,
} from '../support/harness.js';

const WEEK = '2031-04-28'; // a Monday
const NEXT_WEEK = '2031-05-05';
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/** Issue 16: weekly activity in, scores relative to North America out, read with a token. */
describe.each(dialects)('engagement metrics on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let token: string;
  let n = 0;

  beforeAll(async () => {
    ({ h, p, token } = await startWithOAuthPartner(dialect, 'engagement', 'Insights Partner'));
  });
  afterAll(() => h.close());

  const business = async (country = 'US', linked = true) => {
    const location = { address1: '1 Main St', city: 'Somewhere', state: 'XX', country, zip_code: '00000' };
    const { id, alias } = await linkedBusiness(h.url, linked ? [p.partner.id] : [], {
      name: `Engaged ${++n}`,
      alias: `engaged-${dialect}-${n}`,
      location,
    });
    return { id, alias };
  };
  const load = async (rows: unknown[]) => {
    const r = await admin(h.url, 'POST', '/admin/v1/engagement/activity', { body: ndjson(rows), contentType: 'application/x-ndjson' });
    expect(r.status, r.text).toBe(200);
    await h.pbs.ctx.tasks.runDue();
    return r.body;
  };
  const read = (query: string, t = token) => call(h.url, 'GET', `/v3/businesses/engagement?${query}`, { token: t });
  /** Each business's weeks, read through the typed SDK with the OAuth client flow, as a partner would. */
  const metricsOf = async (ids: string[], range: { date_range_start?: string; date_range_end?: string } = {}) => {
    const client = partnerClient(h.url, p, 'oauth');
    const r = await answered(client.GET('/v3/businesses/engagement', { params: { query: { business_ids: ids, ...range } } }));
    expect(r.status, r.text).toBe(200);
    return new Map(r.body.data.map((d) => [d.business_id, d.metrics]));
  };

  it('scores a week relative to North America and answers the latest scored week by default', async () => {
    // Nothing scored yet: businesses answer with empty metrics.
    const first = await business();
    expect((await read(`business_ids=${first.id}`)).body).toEqual({ data: [{ business_id: first.id, metrics: [] }] });

    const quiet = first;
    const busy = await business('CA');
    const busier = await business('MX');
    const noData = await business();
    const loaded = await load([
      { business_id: quiet.id, week: WEEK, page_views: 1 },
      { business_id: busy.alias, week: '2031-05-01', page_views: 100, website_clicks: 10, calls_and_messages: 3, transactions: 1 },
      {
        business_id: busier.id,
        week: WEEK,
        page_views: 1000,
        website_clicks: 50,
        bookmarks: 20,
        calls_and_messages: 30,
        direction_clicks: 40,
        reviews_and_photos: 5,
        check_ins: 9,
        transactions: 12,
      },
    ]);
    expect(loaded).toEqual({ imported: 3, weeks: [WEEK] });

    const r = await read(`business_ids=${busier.alias},${quiet.id}&business_ids=${noData.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      data: [
        { business_id: busier.id, metrics: [{ start_of_week_date: WEEK, engagement_metric: 14, intent_metric: 7, transaction_metric: 3 }] },
        { business_id: quiet.id, metrics: [{ start_of_week_date: WEEK, engagement_metric: 1, intent_metric: 1, transaction_metric: 1 }] },
        { business_id: noData.id, metrics: [] },
      ],
    });
    const weeks = (await admin(h.url, 'GET', '/admin/v1/engagement/weeks')).body.weeks;
    expect(weeks[0]).toMatchObject({ week: WEEK, scored: true, businesses_scored: 3 });
  });

  it('scores again when a week changes, leaves businesses outside North America out, and reads ranges', async () => {
    const ids = await Promise.all([business(), business(), business()]);
    await load(ids.map((b, i) => ({ business_id: b.id, week: NEXT_WEEK, page_views: 10 * (i + 1) })));
    const before = await metricsOf(ids.map((b) => b.id));
    const france = await business('FR');
    await load([{ business_id: france.id, week: NEXT_WEEK, page_views: 5, transactions: 1000 }]);
    expect(await metricsOf(ids.map((b) => b.id))).toEqual(before);
    expect((await metricsOf([france.id])).get(france.id)).toEqual([]);
    // Only a change of North American data moves the scores.
    await load([{ business_id: ids[0].id, week: NEXT_WEEK, page_views: 10_000 }]);
    const after = await metricsOf(ids.map((b) => b.id));
    expect(after.get(ids[0].id)![0].engagement_metric).toBeGreaterThan(before.get(ids[0].id)![0].engagement_metric);

    // Two weeks of one business; the default range is the latest scored week (NEXT_WEEK).
    await load([{ business_id: ids[1].id, week: WEEK, page_views: 3 }]);
    expect((await metricsOf([ids[1].id])).get(ids[1].id)!.map((m) => m.start_of_week_date)).toEqual([NEXT_WEEK]);
    const both = (await metricsOf([ids[1].id], { date_range_start: WEEK, date_range_end: '2031-05-11' })).get(ids[1].id)!;
    expect(both.map((m) => m.start_of_week_date)).toEqual([WEEK, NEXT_WEEK]);
    expect((await metricsOf([ids[1].id], { date_range_start: '2031-04-30' })).get(ids[1].id)!.map((m) => m.start_of_week_date)).toEqual([
      WEEK,
      NEXT_WEEK,
    ]);
    expect((await metricsOf([ids[1].id], { date_range_end: '2031-05-01' })).get(ids[1].id)!.map((m) => m.start_of_week_date)).toEqual([
      WEEK,
    ]);
    expect((await metricsOf([ids[1].id], { date_range_start: '2030-01-01', date_range_end: '2030-02-01' })).get(ids[1].id)).toEqual([]);

    const view = (await admin(h.url, 'GET', `/admin/v1/businesses/${ids[1].id}/engagement`)).body;
    expect(view.weeks.map((w: { week: string }) => w.week)).toEqual([WEEK, NEXT_WEEK]);
    expect(view.weeks[0].activity.page_views).toBe(3);
  });

  it('refuses what the contract refuses: 21 ids, no ids, unknown, unlinked, bad dates, no interface', async () => {
    const mine = await business();
    const twentyOne = Array.from({ length: 21 }, () => mine.id);
    expectCode(await read(`business_ids=${twentyOne.join(',')}`), 400, 'INVALID_REQUEST');
    expectCode(await read(twentyOne.map((id) => `business_ids=${id}`).join('&')), 400, 'INVALID_REQUEST');
    expect((await read(Array.from({ length: 20 }, () => `business_ids=${mine.id}`).join('&'))).status).toBe(200);
    expectCode(await read(''), 400, 'INVALID_REQUEST');
    expectCode(await read('business_ids='), 400, 'INVALID_REQUEST');
    expectCode(await read(`business_ids=${'x'.repeat(201)}`), 400, 'INVALID_REQUEST');
    expectCode(await read(`business_ids=${mine.id},no-such-business`), 404, 'NOT_FOUND');
    const stranger = await business('US', false);
    expectCode(await read(`business_ids=${mine.id},${stranger.id}`), 403, 'AUTHORIZATION_ERROR');
    for (const bad of [
      'date_range_start=2031-13-01',
      'date_range_end=tomorrow',
      'date_range_start=2031-05-10&date_range_end=2031-05-01',
      'date_range_start=2020-01-01&date_range_end=2031-01-01',
    ]) {
      expectCode(await read(`business_ids=${mine.id}&${bad}`), 400, 'INVALID_REQUEST');
    }
    const other = await createPartner(h.url, ['private_reviews'], 'No engagement');
    await admin(h.url, 'PUT', `/admin/v1/partners/${other.partner.id}/businesses/${mine.id}`);
    expectCode(await read(`business_ids=${mine.id}`, other.apiKey.api_key), 403, 'PARTNER_ENDPOINT_DISABLED');
    expect((await call(h.url, 'GET', `/v3/businesses/engagement?business_ids=${mine.id}`)).status).toBe(401);
  });

  it('checks every activity line before storing any', async () => {
    const b = await business();
    const post = (rows: unknown[] | string) =>
      admin(h.url, 'POST', '/admin/v1/engagement/activity', {
        body: typeof rows === 'string' ? rows : ndjson(rows),
        contentType: 'application/x-ndjson',
      });
    const good = { business_id: b.id, week: '2031-06-02', page_views: 1 };
    for (const bad of [
      [good, { business_id: b.id, week: '2031-06-40' }],
      [good, { business_id: b.id, week: '2031-06-02', page_views: -1 }],
      [good, { business_id: b.id, week: '2031-06-02', page_views: 1.5 }],
      [good, { business_id: b.id, week: '2031-06-02', page_views: 1e13 }],
      [good, { business_id: b.id, week: '2031-06-02', likes: 3 }],
      [good, { week: '2031-06-02' }],
      [good, { business_id: 'no-such-business', week: '2031-06-02' }],
      [good, { ...good, week: '2031-06-05' }],
    ]) {
      const r = await post(bad);
      expect(r.status, JSON.stringify(bad[1])).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expectCode(await post(`${JSON.stringify(good)}\n{not json`), 400, 'VALIDATION_ERROR');
    expectCode(await post(''), 400, 'VALIDATION_ERROR');
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/${b.id}/engagement`)).body.weeks).toEqual([]);
    expectCode(await admin(h.url, 'POST', '/admin/v1/engagement/weeks/2031-02-30/score'), 400, 'VALIDATION_ERROR');
    expectCode(await admin(h.url, 'POST', '/admin/v1/engagement/weeks/2001-01-01/score'), 404, 'NOT_FOUND');
  });

  it('scores in the database exactly as scoring.ts does, ties and countries included', async () => {
    // The database scores a week in one statement (a country's businesses never in memory);
    // scoring.ts is the rule. 400 businesses in four countries, counts with many ties.
    const week = '2031-07-07';
    const { next, activity } = generator(2026);
    const countries = ['US', 'CA', 'MX', 'FR'];
    const businesses = Array.from({ length: 400 }, (_, i) => ({
      ...sampleBusiness({ name: `Scored ${dialect} ${i}`, alias: `scored-${dialect}-${i}` }),
      id: `scored-${dialect}-${i}`,
      location: { address1: '1 Main St', city: 'Somewhere', state: 'XX', country: countries[i % 4], zip_code: '00000' },
    }));
    const imported = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson(businesses),
      contentType: 'application/x-ndjson',
    });
    expect(imported.status, imported.text).toBe(200);
    const activities = businesses.map(() => (next() < 0.2 ? { ...activity(), page_views: 7, transactions: 0 } : activity()));
    await load(businesses.map((b, i) => ({ business_id: b.id, week, ...activities[i] })));
    const population = businesses.map((b, i) => ({ id: b.id, activity: activities[i] })).filter((_, i) => countries[i % 4] !== 'FR');
    const expected = scoreWeek(population.map((p) => p.activity));
    const stored = await h.pbs.services.engagement.store().scoresOf(businesses.map((b) => b.id));
    const byId = new Map(stored.filter((s) => s.week_start === week).map((s) => [s.business_id, s]));
    expect(byId.size).toBe(population.length);
    population.forEach((p, i) => {
      const s = byId.get(p.id)!;
      expect(
        { engagement_metric: s.engagement_metric, intent_metric: s.intent_metric, transaction_metric: s.transaction_metric },
        p.id,
      ).toEqual(expected[i]);
    });
  });
});

/** A small deterministic generator, so a failing case can be replayed from its seed. */
function generator(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const count = () => (next() < 0.3 ? 0 : Math.floor(next() ** 3 * 5000));
  const activity = (): Activity => Object.fromEntries(ACTIVITY_FIELDS.map((f) => [f, count()])) as Activity;
  return { next, activity };
}

describe('engagement scoring properties', () => {
  it('keeps every score in range, is monotone in activity, and is deterministic', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const g = generator(seed);
      const population = Array.from({ length: 1 + Math.floor(g.next() * 300) }, () => g.activity());
      const scores = scoreWeek(population);
      expect(scoreWeek(population)).toEqual(scores);
      for (const s of scores) {
        expect(s.engagement_metric).toBeGreaterThanOrEqual(1);
        expect(s.engagement_metric).toBeLessThanOrEqual(LEVELS.engagement);
        expect(s.intent_metric).toBeGreaterThanOrEqual(1);
        expect(s.intent_metric).toBeLessThanOrEqual(LEVELS.intent);
        expect(s.transaction_metric).toBeGreaterThanOrEqual(1);
        expect(s.transaction_metric).toBeLessThanOrEqual(LEVELS.transaction);
      }
      // More of any one input never lowers a business's scores.
      const i = Math.floor(g.next() * population.length);
      const field = ACTIVITY_FIELDS[Math.floor(g.next() * ACTIVITY_FIELDS.length)];
      const more = population.map((a, j) => (j === i ? { ...a, [field]: a[field] + 1 + Math.floor(g.next() * 1000) } : a));
      const raised = scoreWeek(more)[i];
      expect(raised.engagement_metric).toBeGreaterThanOrEqual(scores[i].engagement_metric);
      expect(raised.intent_metric).toBeGreaterThanOrEqual(scores[i].intent_metric);
      expect(raised.transaction_metric).toBeGreaterThanOrEqual(scores[i].transaction_metric);
      // A business with at least the activity of another, input by input, scores at least as high.
      for (let k = 0; k < 20; k++) {
        const a = Math.floor(g.next() * population.length);
        const b = Math.floor(g.next() * population.length);
        if (ACTIVITY_FIELDS.every((f) => population[a][f] >= population[b][f])) {
          expect(scores[a].engagement_metric).toBeGreaterThanOrEqual(scores[b].engagement_metric);
          expect(scores[a].intent_metric).toBeGreaterThanOrEqual(scores[b].intent_metric);
          expect(scores[a].transaction_metric).toBeGreaterThanOrEqual(scores[b].transaction_metric);
        }
      }
    }
  });

  it('uses the whole scale on a large population, the least active at 1 and the most at the top', () => {
    const g = generator(42);
    const population = Array.from({ length: 10_000 }, () => g.activity());
    const scores = scoreWeek(population);
    expect(new Set(scores.map((s) => s.engagement_metric)).size).toBe(LEVELS.engagement);
    expect(new Set(scores.map((s) => s.intent_metric)).size).toBe(LEVELS.intent);
    expect(new Set(scores.map((s) => s.transaction_metric)).size).toBe(LEVELS.transaction);
    expect([...levelsOf(Float64Array.from([0, 0, 0, 5]), 4)]).toEqual([1, 1, 1, 4]);
    expect([...levelsOf(Float64Array.from([7]), 20)]).toEqual([1]);
  });
});

/** With confirmed links kept (as in production), a repeated read is answered from them: the same answer. */
describe.each(dialects)('engagement reads from confirmed links on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_AUTH_CACHE_MS: '60000' } });
  });
  afterAll(() => h.close());

  it('answers a list given with an alias, repeats and a repeated key alike, before and after the links are kept', async () => {
    const p = await createPartner(h.url, ['engagement']);
    const [a, b] = [await linkedBusiness(h.url, [p.partner.id]), await linkedBusiness(h.url, [p.partner.id])];
    const unlinked = await linkedBusiness(h.url, []);
    const query = `business_ids=${b.alias},${a.id},${b.id}&business_ids=${a.alias}`;
    const first = await call(h.url, 'GET', `/v3/businesses/engagement?${query}`, { token: p.apiKey.api_key });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((d: { business_id: string }) => d.business_id)).toEqual([b.id, a.id]);
    const again = await call(h.url, 'GET', `/v3/businesses/engagement?${query}`, { token: p.apiKey.api_key });
    expect(again.body).toEqual(first.body);
    // A kept link does not let an unlinked business through.
    const refused = await call(h.url, 'GET', `/v3/businesses/engagement?business_ids=${a.id},${unlinked.id}`, { token: p.apiKey.api_key });
    expectCode(refused, 403, 'AUTHORIZATION_ERROR');
  });

  it('keeps a list by its text for the partner that sent it, until one of its links changes', async () => {
    const p = await createPartner(h.url, ['engagement']);
    const other = await createPartner(h.url, ['engagement']);
    const [a, b] = [await linkedBusiness(h.url, [p.partner.id]), await linkedBusiness(h.url, [p.partner.id])];
    const path = `/v3/businesses/engagement?business_ids=${a.id},${b.alias},${a.id}`;
    for (let i = 0; i < 3; i++) {
      const read = await call(h.url, 'GET', path, { token: p.apiKey.api_key });
      expect(read.status, read.text).toBe(200);
      expect(read.body.data.map((d: { business_id: string }) => d.business_id)).toEqual([a.id, b.id]);
    }
    // The same words from another partner are that partner's list: its own links count.
    expectCode(await call(h.url, 'GET', path, { token: other.apiKey.api_key }), 403, 'AUTHORIZATION_ERROR');
    // Unlinking one of its businesses forgets the list at once.
    expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${p.partner.id}/businesses/${b.id}`)).status).toBe(204);
    expectCode(await call(h.url, 'GET', path, { token: p.apiKey.api_key }), 403, 'AUTHORIZATION_ERROR');
  });
});
