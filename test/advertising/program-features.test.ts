import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUsLocation } from '../../src/advertising/program-features.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/** Issue 24: the Program Feature API (docs/contract/advertising.md §8.8; docs/advertising.md "Program features"). */
describe.each(dialects)('program features on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let other: Awaited<ReturnType<typeof createPartner>>;
  let n = 0;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_AD_JOB_DELAY_MS: '1000' } });
    p = await createPartner(h.url, ['advertising', 'webhooks'], 'Feature Reseller');
    other = await createPartner(h.url, ['advertising'], 'Other Feature Reseller');
    for (const q of [p, other])
      await admin(h.url, 'PUT', `/admin/v1/partners/${q.partner.id}/interfaces/advertising`, { json: { per_second: 100000 } });
  });
  afterAll(() => h.close());

  const as = (q = p) => ({ basic: [q.basic.username, q.basic.password] as [string, string] });
  /** A program of `type` for a new business linked to the partner, through a create job. */
  const program = async (type: string, extra: Record<string, string> = {}) => {
    const biz = (
      await admin(h.url, 'POST', '/admin/v1/businesses', {
        json: sampleBusiness({ name: `Featured ${++n}`, specialties: 'Handmade pasta' }),
      })
    ).body.id as string;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${biz}`);
    const params = new URLSearchParams({
      business_id: biz,
      program_name: type,
      ...(type === 'CPC' ? { budget: '20000', is_autobid: 'true' } : {}),
      ...extra,
    });
    const job = await call(h.url, 'POST', `/v1/reseller/program/create?${params}`, as());
    h.clock.advance(1000);
    await h.pbs.ctx.tasks.runDue();
    const receipt = await call(h.url, 'GET', `/v1/reseller/status/${job.body.job_id}`, as());
    expect(receipt.body.business_results[0].update_results.program_added.program_id.status, receipt.text).toBe('COMPLETED');
    return { biz, id: receipt.body.business_results[0].update_results.program_added.program_id.requested_value as string };
  };
  const features = (id: string, q = p) => call(h.url, 'GET', `/program/${id}/features/v1`, as(q));
  const set = (id: string, body: unknown, q = p) => call(h.url, 'POST', `/program/${id}/features/v1`, { ...as(q), json: body });
  const remove = (id: string, body: unknown) => call(h.url, 'DELETE', `/program/${id}/features/v1`, { ...as(), json: body });
  const expectInvalid = (r: { status: number; body: any }, field: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('INVALID_REQUEST');
    expect(r.body.error.field).toBe(field);
  };

  it('reads every feature a program may have, sets some, deletes some, and lists them as active', async () => {
    const { biz, id } = await program('CPC');
    const start = await features(id);
    expect(start.status).toBe(200);
    expect(Object.keys(start.body.features).sort()).toEqual([
      'AD_GOAL',
      'AD_SCHEDULING',
      'CALL_TRACKING',
      'CUSTOM_AD_PHOTO',
      'CUSTOM_AD_TEXT',
      'CUSTOM_LOCATION_TARGETING',
      'CUSTOM_RADIUS_TARGETING',
      'LINK_TRACKING',
      'NEGATIVE_KEYWORD_TARGETING',
      'STRICT_CATEGORY_TARGETING',
    ]);
    expect(start.body.features.AD_GOAL).toEqual({ ad_goal: 'DEFAULT' });
    expect(start.body.features.CALL_TRACKING).toEqual({ enabled: false, businesses: [{ business_id: biz, metered_phone_number: null }] });

    const changed = await set(id, {
      features: {
        AD_GOAL: { ad_goal: 'CALLS' },
        LINK_TRACKING: { website: 'https://example.com/?src=ads' },
        CUSTOM_RADIUS_TARGETING: { custom_radius: 25 },
        CUSTOM_LOCATION_TARGETING: { businesses: [{ business_id: biz, locations: ['94103', 'Oakland, CA'] }] },
        NEGATIVE_KEYWORD_TARGETING: { blocked_keywords: ['cheap', 'free', 'cheap'] },
      },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.features.AD_GOAL).toEqual({ ad_goal: 'CALLS' });
    expect(changed.body.features.LINK_TRACKING).toEqual({ website: 'https://example.com/?src=ads', menu: null, call_to_action: null });
    expect(changed.body.features.NEGATIVE_KEYWORD_TARGETING).toEqual({ suggested_keywords: [], blocked_keywords: ['cheap', 'free'] });
    // A field left out keeps its value.
    const again = await set(id, { features: { LINK_TRACKING: { menu: 'https://example.com/menu' } } });
    expect(again.body.features.LINK_TRACKING).toEqual({
      website: 'https://example.com/?src=ads',
      menu: 'https://example.com/menu',
      call_to_action: null,
    });
    expect((await features(id)).body).toEqual(again.body);

    const listed = (await call(h.url, 'GET', `/v1/programs/info/${id}`, as())).body.programs[0];
    expect(listed.active_features).toEqual([
      'AD_GOAL',
      'CUSTOM_LOCATION_TARGETING',
      'CUSTOM_RADIUS_TARGETING',
      'LINK_TRACKING',
      'NEGATIVE_KEYWORD_TARGETING',
    ]);
    expect(listed.available_features).toEqual([
      'STRICT_CATEGORY_TARGETING',
      'AD_SCHEDULING',
      'CALL_TRACKING',
      'CUSTOM_AD_TEXT',
      'CUSTOM_AD_PHOTO',
    ]);
    expect(listed).not.toHaveProperty('page_upgrade_info');
    const byBusiness = (await call(h.url, 'GET', `/v1/programs/list/${biz}`, as())).body.businesses[0].programs[0];
    expect(byBusiness.active_features).toEqual(listed.active_features);

    const removed = await remove(id, { features: ['AD_GOAL', 'CUSTOM_RADIUS_TARGETING'] });
    expect(removed.status).toBe(200);
    expect(removed.body.features.AD_GOAL).toEqual({ ad_goal: 'DEFAULT' });
    expect(removed.body.features.CUSTOM_RADIUS_TARGETING).toEqual({ custom_radius: null });
    const byQuery = await call(h.url, 'DELETE', `/program/${id}/features/v1?features=LINK_TRACKING,NEGATIVE_KEYWORD_TARGETING`, as());
    expect(byQuery.status).toBe(200);
    expect((await call(h.url, 'GET', `/v1/programs/info/${id}`, as())).body.programs[0].active_features).toEqual([
      'CUSTOM_LOCATION_TARGETING',
    ]);

    const operator = await admin(h.url, 'GET', `/admin/v1/advertising/programs/${id}/features`);
    expect(operator.body).toMatchObject({
      program_id: id,
      partner_id: p.partner.id,
      program_type: 'CPC',
      set: [
        { feature_type: 'CUSTOM_LOCATION_TARGETING', value: { businesses: [{ business_id: biz, locations: ['94103', 'Oakland, CA'] }] } },
      ],
    });
    expect((await admin(h.url, 'GET', '/admin/v1/advertising/programs/nope/features')).status).toBe(404);
  });

  it('allows each program type only its features, written down per type', async () => {
    const logo = await program('LOGO');
    expect(Object.keys((await features(logo.id)).body.features)).toEqual(['BUSINESS_LOGO']);
    expect((await set(logo.id, { features: { BUSINESS_LOGO: { business_logo_url: 'https://example.com/logo.png' } } })).status).toBe(200);
    expectInvalid(await set(logo.id, { features: { AD_GOAL: { ad_goal: 'CALLS' } } }), 'features.AD_GOAL');
    expectInvalid(await set(logo.id, { features: { SERVICE_OFFERINGS_TARGETING: {} } }), 'features.SERVICE_OFFERINGS_TARGETING');
    const bh = await program('BH');
    const highlights = await set(bh.id, {
      features: { BUSINESS_HIGHLIGHTS: { active_business_highlights: ['FAMILY_OWNED', 'VETERAN_OWNED'] } },
    });
    expect(highlights.body.features.BUSINESS_HIGHLIGHTS.active_business_highlights).toEqual(['FAMILY_OWNED', 'VETERAN_OWNED']);
    expectInvalid(
      await set(bh.id, { features: { BUSINESS_HIGHLIGHTS: { active_business_highlights: ['BEST_IN_TOWN'] } } }),
      'features.BUSINESS_HIGHLIGHTS.active_business_highlights[0]',
    );
    const vl = await program('VL');
    const license = await set(vl.id, {
      features: {
        VERIFIED_LICENSE: {
          licenses: [{ license_number: 'C-10 123456', license_trade: 'Electrician', license_expiry_date: '2033-01-31' }],
        },
      },
    });
    expect(license.body.features.VERIFIED_LICENSE.licenses).toEqual([
      {
        license_number: 'C-10 123456',
        license_expiry_date: '2033-01-31',
        license_trade: 'Electrician',
        license_issuing_agency: null,
        license_verification_status: 'PENDING',
      },
    ]);
    const portfolio = await program('PORTFOLIO');
    expect(
      (await set(portfolio.id, { features: { YELP_PORTFOLIO: { projects: [{ project_id: 'kitchen-2031' }] } } })).body.features
        .YELP_PORTFOLIO,
    ).toEqual({
      projects: [{ project_id: 'kitchen-2031', published: true }],
    });
    const rca = await program('RCA');
    expect((await features(rca.id)).body).toEqual({ features: {} });
  });

  it('answers a clear 400 naming the field for every value it cannot take, and changes nothing', async () => {
    const { biz, id } = await program('CPC');
    const cases: Array<[unknown, string]> = [
      [{ features: { CUSTOM_RADIUS_TARGETING: { custom_radius: 61 } } }, 'features.CUSTOM_RADIUS_TARGETING.custom_radius'],
      [{ features: { CUSTOM_RADIUS_TARGETING: { custom_radius: 0.5 } } }, 'features.CUSTOM_RADIUS_TARGETING.custom_radius'],
      [{ features: { CUSTOM_RADIUS_TARGETING: {} } }, 'features.CUSTOM_RADIUS_TARGETING.custom_radius'],
      [{ features: { AD_GOAL: { ad_goal: 'LEADS' } } }, 'features.AD_GOAL.ad_goal'],
      [{ features: { AD_GOAL: { ad_goal: 'CALLS', extra: 1 } } }, 'features.AD_GOAL.extra'],
      [{ features: { STRICT_CATEGORY_TARGETING: { enabled: 'yes' } } }, 'features.STRICT_CATEGORY_TARGETING.enabled'],
      [{ features: { LINK_TRACKING: { website: 'javascript:alert(1)' } } }, 'features.LINK_TRACKING.website'],
      [
        {
          features: {
            CUSTOM_LOCATION_TARGETING: {
              businesses: [{ business_id: biz, locations: Array.from({ length: 26 }, (_, i) => `${94100 + i}`) }],
            },
          },
        },
        'features.CUSTOM_LOCATION_TARGETING.businesses[0].locations',
      ],
      [
        { features: { CUSTOM_LOCATION_TARGETING: { businesses: [{ business_id: biz, locations: ['Paris, France'] }] } } },
        'features.CUSTOM_LOCATION_TARGETING.businesses[0].locations[0]',
      ],
      [
        { features: { CUSTOM_LOCATION_TARGETING: { businesses: [{ business_id: 'someone-else', locations: [] }] } } },
        'features.CUSTOM_LOCATION_TARGETING.businesses[0].business_id',
      ],
      [
        { features: { CALL_TRACKING: { enabled: true, businesses: [{ business_id: biz, metered_phone_number: '555-1234' }] } } },
        'features.CALL_TRACKING.businesses[0].metered_phone_number',
      ],
      [{ features: { CUSTOM_AD_TEXT: { custom_review_id: 'r1', custom_text: 'Best pasta' } } }, 'features.CUSTOM_AD_TEXT'],
      [{ features: { AD_GOAL: 'CALLS' } }, 'features.AD_GOAL'],
      [{ features: {} }, 'features'],
      [{ features: ['AD_GOAL'] }, 'features'],
      [{}, 'features'],
    ];
    for (const [body, field] of cases) expectInvalid(await set(id, body), field);
    // One bad feature refuses the whole request: the good one beside it is not written.
    expectInvalid(
      await set(id, { features: { AD_GOAL: { ad_goal: 'CALLS' }, CUSTOM_RADIUS_TARGETING: { custom_radius: 100 } } }),
      'features.CUSTOM_RADIUS_TARGETING.custom_radius',
    );
    expect((await features(id)).body.features.AD_GOAL).toEqual({ ad_goal: 'DEFAULT' });
    expectInvalid(await remove(id, { features: [] }), 'features');
    expectInvalid(await remove(id, { features: ['BUSINESS_LOGO'] }), 'features.BUSINESS_LOGO');
    expect(isUsLocation('New York, ny')).toBe(true);
    expect(isUsLocation('9410')).toBe(false);
  });

  it("answers 404 for another partner's program or an unknown one, and 409 once the program has ended", async () => {
    const { id } = await program('CPC');
    for (const r of [
      await features(id, other),
      await set(id, { features: { AD_GOAL: { ad_goal: 'CALLS' } } }, other),
      await features('no-such-program'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
    const end = await call(h.url, 'POST', `/v1/reseller/program/${id}/end`, as());
    h.clock.advance(1000);
    await h.pbs.ctx.tasks.runDue();
    expect((await call(h.url, 'GET', `/v1/reseller/status/${end.body.job_id}`, as())).status).toBe(200);
    expect((await features(id)).status).toBe(200);
    const late = await set(id, { features: { AD_GOAL: { ad_goal: 'CALLS' } } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('CONFLICT');
  });

  it('tells the owner through ADVERTISING_PROGRAM_UPDATED_EVENT (change FEATURES_CHANGED), and replays an Idempotency-Key', async () => {
    const receiver = new Receiver();
    const url = await receiver.start();
    receiver.behaviour = Receiver.echoing();
    try {
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
        json: { url, client_id: 'features', event_types: ['ADVERTISING_PROGRAM_UPDATED_EVENT'] },
      });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
      const { biz, id } = await program('CPC');
      const body = { features: { AD_SCHEDULING: { uses_opening_hours: true } } };
      const first = await call(h.url, 'POST', `/program/${id}/features/v1`, {
        ...as(),
        json: body,
        headers: { 'idempotency-key': `features-${dialect}` },
      });
      const replay = await call(h.url, 'POST', `/program/${id}/features/v1`, {
        ...as(),
        json: body,
        headers: { 'idempotency-key': `features-${dialect}` },
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      await h.pbs.deliverWebhooks();
      const updates = receiver
        .posts()
        .map((post) => JSON.parse(post.body))
        .filter((u) => u.data.id === biz)
        .map((u) => u.data.updates[0]);
      const changed = updates.filter((u) => u.change === 'FEATURES_CHANGED');
      expect(changed).toEqual([
        expect.objectContaining({
          program_id: id,
          feature_types: ['AD_SCHEDULING'],
          active_features: ['AD_SCHEDULING'],
          program_status: 'ACTIVE',
        }),
      ]);
    } finally {
      await receiver.stop();
    }
  });
});
