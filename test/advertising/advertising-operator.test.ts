import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, dialects, sampleBusiness, T0, type Harness, type TestPartner } from '../support/harness.js';
import { advertisingHelpers, startAdvertising } from './fixture.js';
import { Receiver } from '../support/receiver.js';

// The harness clock: Monday 2031-05-05 16:00 UTC, 09:00 in Los Angeles.

/**
 * Issue 14: every job error code from a condition the operator can set up (business flags,
 * category policy, promotions, recorded spend), program listings, held jobs, the end-of-day
 * schedule and the advertising webhook events.
 */
describe.each(dialects)('advertising with the operator on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let other: TestPartner;

  beforeAll(async () => {
    ({ h, p, other } = await startAdvertising(dialect, ['webhooks']));
  });
  afterAll(() => h.close());

  const { business, as, process, status } = advertisingHelpers(() => ({ h, p, other }), {
    name: 'Operated',
    specialties: 'Handmade pasta',
  });
  const submit = async (path: string, params: Record<string, string | string[]>, q = p) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) query.append(k, one);
    const r = await call(h.url, 'POST', `${path}?${query}`, as(q));
    expect(r.status, r.text).toBe(200);
    await process();
    const done = await status(r.body.job_id, q);
    expect(done.status, done.text).toBe(200);
    return done.body.business_results[0];
  };
  const created = (params: Record<string, string | string[]>, q = p) => submit('/v1/reseller/program/create', params, q);
  const edited = (id: string, params: Record<string, string | string[]>) => submit(`/v1/reseller/program/${id}/edit`, params);
  const ended = (id: string) => submit(`/v1/reseller/program/${id}/end`, {});
  const programOf = (result: any): string => {
    expect(result.update_results.program_added.program_id.status, JSON.stringify(result)).toBe('COMPLETED');
    return result.update_results.program_added.program_id.requested_value;
  };
  /** The one rejected key of a receipt and its code; every other key PARENT_WAS_REJECTED. */
  const rejection = (result: any) => {
    expect(result.status, JSON.stringify(result)).toBe('COMPLETED');
    const keys = result.update_results.program_added ?? result.update_results.program_modified;
    const own = Object.entries(keys).filter(([, v]: [string, any]) => v.error?.code !== 'PARENT_WAS_REJECTED');
    for (const [, v] of Object.entries(keys)) expect(v).toMatchObject({ status: 'REJECTED' });
    expect(own, JSON.stringify(keys)).toHaveLength(1);
    return { key: own[0][0], code: (own[0][1] as any).error.code as string, message: (own[0][1] as any).error.message as string };
  };
  const cpc = { program_name: 'CPC', budget: '20000', is_autobid: 'true' };
  const info = (ids: string, q = p) => call(h.url, 'GET', `/v1/programs/info/${ids}`, as(q));

  it('rejects new programs of a business restricted from advertising', async () => {
    const biz = await business();
    const flags = await admin(h.url, 'PUT', `/admin/v1/advertising/businesses/${biz}/flags`, {
      json: { restricted_from_advertising: true },
    });
    expect(flags.body).toEqual({ business_id: biz, removed_from_search: false, restricted_from_advertising: true });
    expect(rejection(await created({ business_id: biz, program_name: 'BP' }))).toMatchObject({
      key: 'program_name',
      code: 'BUSINESS_RESTRICTED_FROM_ADVERTISING',
    });
    await admin(h.url, 'PUT', `/admin/v1/advertising/businesses/${biz}/flags`, { json: { restricted_from_advertising: false } });
    programOf(await created({ business_id: biz, program_name: 'BP' }));
  });

  it('ends the programs of a business removed from search; creations and edits are then rejected for the business', async () => {
    const biz = await business();
    const id = programOf(await created({ business_id: biz, program_name: 'EP' }));
    await admin(h.url, 'PUT', `/admin/v1/advertising/businesses/${biz}/flags`, { json: { removed_from_search: true } });
    expect((await info(id)).body.programs[0].program_status).toBe('INACTIVE');
    expect(await created({ business_id: biz, program_name: 'BP' })).toEqual({
      status: 'REJECTED',
      identifier_type: 'BUSINESS',
      identifier: biz,
      error: { code: 'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH', message: expect.any(String) },
    });
    expect(await edited(id, { end: '2031-06-30' })).toMatchObject({
      status: 'REJECTED',
      error: { code: 'PROGRAM_NOT_ACTIVE_BUSINESS_REMOVED_FROM_SEARCH' },
    });
    expect(await ended(id)).toMatchObject({ status: 'REJECTED', error: { code: 'PROGRAM_HAS_EXPIRED' } });
  });

  it('rejects edits and ends of the programs of a business that closed', async () => {
    const biz = await business();
    const id = programOf(await created({ business_id: biz, program_name: 'RCA' }));
    const closed = await admin(h.url, 'PUT', `/admin/v1/businesses/${biz}`, {
      json: sampleBusiness({ name: 'Closed now', specialties: 'Handmade pasta', is_closed: true }),
    });
    expect(closed.status, closed.text).toBeLessThan(300);
    expect(await edited(id, { end: '2031-06-30' })).toMatchObject({
      status: 'REJECTED',
      error: { code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' },
    });
    expect(await ended(id)).toMatchObject({ status: 'REJECTED', error: { code: 'PROGRAM_NOT_ACTIVE_CLOSED_BUSINESS' } });
  });

  it('needs specialties and categories the policy accepts for CPC; ad_categories must be the business’s', async () => {
    const noSpecialties = await business({ specialties: '' });
    expect(rejection(await created({ business_id: noSpecialties, ...cpc }))).toMatchObject({
      key: 'program_name',
      code: 'INVALID_OR_MISSING_KEY',
    });

    const biz = await business({
      categories: [
        { alias: 'cannabis_clinics', title: 'Cannabis Clinics' },
        { alias: 'pizza', title: 'Pizza' },
      ],
    });
    expect(rejection(await created({ business_id: biz, ...cpc, ad_categories: 'tacos' }))).toMatchObject({
      key: 'ad_categories',
      code: 'INVALID_OR_MISSING_KEY',
    });
    await admin(h.url, 'PUT', '/admin/v1/advertising/category-policy/cannabis_clinics', { json: { reason: 'regulated' } });
    expect((await admin(h.url, 'GET', '/admin/v1/advertising/category-policy')).body.declined).toContainEqual({
      category: 'cannabis_clinics',
      reason: 'regulated',
    });
    // Repeated keys and comma lists alike.
    const declined = rejection(await created({ business_id: biz, ...cpc, ad_categories: ['pizza', 'cannabis_clinics'] }));
    expect(declined).toMatchObject({ key: 'ad_categories', code: 'UNSUPPORTED_CATEGORIES' });
    expect(declined.message).toContain('regulated');
    const onlyDeclined = await business({ categories: [{ alias: 'cannabis_clinics', title: 'Cannabis Clinics' }] });
    expect(rejection(await created({ business_id: onlyDeclined, ...cpc }))).toMatchObject({
      key: 'program_name',
      code: 'UNSUPPORTED_CATEGORIES',
    });
    // The allowed category alone is fine; and so is the business once the policy allows it again.
    const id = programOf(await created({ business_id: biz, ...cpc, ad_categories: 'pizza' }));
    expect(rejection(await edited(id, { ad_categories: 'pizza,cannabis_clinics' }))).toMatchObject({
      key: 'ad_categories',
      code: 'UNSUPPORTED_CATEGORIES',
    });
    await admin(h.url, 'DELETE', '/admin/v1/advertising/category-policy/cannabis_clinics');
    expect((await edited(id, { ad_categories: 'pizza,cannabis_clinics' })).update_results.program_modified.ad_categories.status).toBe(
      'COMPLETED',
    );
  });

  it('keeps Branded and Enhanced Profile apart, and asks for a later start after a program ended', async () => {
    const biz = await business({}, true);
    const bp = programOf(await created({ business_id: biz, program_name: 'BP' }));
    expect(rejection(await created({ business_id: biz, program_name: 'EP' }, other))).toMatchObject({
      key: 'program_name',
      code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM',
    });
    await ended(bp);
    expect(rejection(await created({ business_id: biz, program_name: 'BP', start: '2031-05-05' }))).toMatchObject({
      code: 'CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM',
    });
    programOf(await created({ business_id: biz, program_name: 'EP' }, other));
  });

  it('records spend, clicks and impressions; a budget below what the period spent is rejected', async () => {
    const biz = await business();
    const id = programOf(await created({ business_id: biz, ...cpc, start: '2031-05-05' }));
    const lines = [
      { program_id: id, date: '2031-05-05', spend: 3100, billed_clicks: 12, billed_impressions: 400 },
      { program_id: id, date: '2031-04-30', spend: 900, billed_clicks: 3, billed_impressions: 100 },
    ];
    const imported = await admin(h.url, 'POST', '/admin/v1/advertising/metrics', {
      body: lines.map((l) => JSON.stringify(l)).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.body, imported.text).toEqual({ imported: 2 });
    const view = (await info(id)).body.programs[0];
    expect(view.program_metrics).toEqual({
      budget: 20000,
      currency: 'USD',
      is_autobid: true,
      max_bid: null,
      billed_impressions: 500,
      billed_clicks: 15,
      ad_cost: 4000,
      fee_period: 'Calendar Month',
    });
    // May spent 3,100 (April's 900 is another period): 3,000 is below it, 3,100 is not.
    const below = rejection(await edited(id, { budget: '3000' }));
    expect(below).toMatchObject({ key: 'budget', code: 'CANNOT_DECREASE_BUDGET_BELOW_AMOUNT_ALREADY_SPENT' });
    expect(below.message).toContain('3100');
    expect((await edited(id, { budget: '3100' })).update_results.program_modified.budget.status).toBe('COMPLETED');
    // All or nothing: an unknown program in a batch imports no line.
    const bad = await admin(h.url, 'POST', '/admin/v1/advertising/metrics', {
      body: `${JSON.stringify({ program_id: id, date: '2031-05-06', spend: 1 })}\n${JSON.stringify({ program_id: 'nope', date: '2031-05-06', spend: 1 })}`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(bad.status).toBe(400);
    expect((await info(id)).body.programs[0].program_metrics.ad_cost).toBe(4000);
    for (const body of [
      '{',
      JSON.stringify({ program_id: id, date: '2031-5-6' }),
      JSON.stringify({ program_id: id, date: '2031-05-06', spend: -1 }),
      '',
    ]) {
      const r = await admin(h.url, 'POST', '/admin/v1/advertising/metrics', { body, headers: { 'content-type': 'application/x-ndjson' } });
      expect(r.status, body).toBe(400);
    }
  });

  it('keeps a business in one currency', async () => {
    const biz = await business();
    const id = programOf(await created({ business_id: biz, ...cpc, currency: 'CAD' }));
    expect(rejection(await created({ business_id: biz, program_name: 'BP', currency: 'USD' }))).toMatchObject({
      key: 'currency',
      code: 'CURRENCY_MISMATCH',
    });
    expect(rejection(await edited(id, { currency: 'USD' }))).toMatchObject({ key: 'currency', code: 'CURRENCY_MISMATCH' });
    // Without a currency a new program takes the business's.
    const bp = programOf(await created({ business_id: biz, program_name: 'BP' }));
    expect((await info(bp)).body.programs[0].program_metrics.currency).toBe('CAD');
  });

  it('rejects a bid above the budget prorated over what is left of the month', async () => {
    const biz = await business();
    // From May 31st one day of 31 is left: 2,600 × 1/31 = 83 cents.
    const late = { business_id: biz, program_name: 'CPC', budget: '2600', is_autobid: 'false', start: '2031-05-31' };
    expect(rejection(await created({ ...late, max_bid: '100' }))).toMatchObject({ key: 'max_bid', code: 'BID_TOO_HIGH_FOR_BUDGET' });
    const id = programOf(await created({ ...late, max_bid: '80' }));
    expect(rejection(await edited(id, { max_bid: '90' }))).toMatchObject({ key: 'max_bid', code: 'BID_TOO_HIGH_FOR_BUDGET' });
  });

  it('applies operator promotions: a valid code adds the separate promo program, an invalid one rejects the program', async () => {
    const saved = await admin(h.url, 'PUT', '/admin/v1/advertising/promotions/SPRING31', {
      json: { program_types: ['CPC'], min_budget: 10000, max_budget: 50000, months: 6 },
    });
    expect(saved.body).toEqual({ code: 'SPRING31', program_types: ['CPC'], min_budget: 10000, max_budget: 50000, months: 6, active: true });
    const biz = await business();
    expect(rejection(await created({ business_id: biz, ...cpc, promotion_code: 'WINTER99' }))).toMatchObject({
      key: 'promotion_code',
      code: 'INVALID_OR_MISSING_KEY',
    });
    expect(rejection(await created({ business_id: biz, program_name: 'BP', promotion_code: 'SPRING31' }))).toMatchObject({
      key: 'promotion_code',
    });
    expect(rejection(await created({ business_id: biz, ...cpc, budget: '60000', promotion_code: 'SPRING31' }))).toMatchObject({
      key: 'budget',
      code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS',
    });
    const result = await created({ business_id: biz, ...cpc, promotion_code: 'SPRING31', start: '2031-05-10' });
    const id = programOf(result);
    expect(result.update_results.program_added.promotion_code).toEqual({ status: 'COMPLETED', requested_value: 'SPRING31' });
    const listed = (await call(h.url, 'GET', `/v1/programs/list/${biz}`, as(p))).body.businesses[0];
    expect(listed.programs).toHaveLength(2);
    const promo = listed.programs.find((x: any) => x.program_id !== id);
    // Same start; the last day of the month six months on (docs/contract/advertising.md §8.9).
    expect(promo).toMatchObject({
      program_type: 'CPC',
      start_date: '2031-05-10',
      end_date: '2031-11-30',
      parent_program_id: id,
      promotion_code: 'SPRING31',
    });
    expect(rejection(await edited(id, { budget: '60000' }))).toMatchObject({
      key: 'budget',
      code: 'CAMPAIGN_BUDGET_VIOLATES_PROMO_RESTRICTIONS',
    });
    expect(rejection(await edited(promo.program_id, { end: '2031-12-31' }))).toMatchObject({ code: 'COULD_NOT_MODIFY_PROGRAM' });
    // Only for new advertisers: this business advertised (its program runs).
    await admin(h.url, 'PUT', '/admin/v1/advertising/promotions/SPRING31', { json: { program_types: ['CPC', 'BP'] } });
    expect(rejection(await created({ business_id: biz, program_name: 'BP', promotion_code: 'SPRING31' }))).toMatchObject({
      key: 'promotion_code',
      code: 'INVALID_OR_MISSING_KEY',
    });
    // Ending the parent before it starts cancels both: the ids leave the listings and answer 404.
    await ended(id);
    expect((await call(h.url, 'GET', `/v1/programs/list/${biz}`, as(p))).body.businesses[0].programs).toEqual([]);
    expect((await info(id)).status).toBe(404);
    expect((await call(h.url, 'POST', `/v1/reseller/program/${id}/edit?budget=30000`, as(p))).status).toBe(404);
  });

  it('schedules a budget change with future_budget_date and applies it on that date (pbs clock)', async () => {
    const biz = await business();
    const id = programOf(await created({ business_id: biz, ...cpc }));
    expect(rejection(await edited(id, { future_budget_date: '2031-06-01' }))).toMatchObject({
      key: 'future_budget_date',
      code: 'INVALID_OR_MISSING_KEY',
    });
    expect(rejection(await edited(id, { budget: '30000', future_budget_date: '2031-05-05' }))).toMatchObject({
      key: 'future_budget_date',
      code: 'CANNOT_ADD_PROGRAM_IN_PAST',
    });
    const scheduled = await edited(id, { budget: '30000', future_budget_date: '2031-06-01' });
    expect(scheduled.update_results.program_modified).toMatchObject({
      budget: { status: 'COMPLETED', requested_value: 30000 },
      future_budget_date: { status: 'COMPLETED' },
    });
    let view = (await info(id)).body.programs[0];
    expect(view.program_metrics.budget).toBe(20000);
    expect(view.future_budget_changes).toEqual([{ new_budget: 30000, start_date: '2031-06-01', old_budget: 20000 }]);
    h.clock.set(Date.parse('2031-06-01T07:01:00Z')); // 00:01 Pacific on June 1st
    await h.pbs.ctx.tasks.runDue();
    view = (await info(id)).body.programs[0];
    expect(view.program_metrics.budget).toBe(30000);
    expect(view.future_budget_changes).toEqual([]);
    h.clock.set(T0);
  });

  it('lists the caller’s programs only: by business, by id and for the whole account', async () => {
    const biz = await business({}, true);
    const mine = programOf(await created({ business_id: biz, program_name: 'BP', end: '2031-05-20' }));
    const theirs = programOf(await created({ business_id: biz, program_name: 'LOGO' }, other));
    const future = programOf(await created({ business_id: biz, ...cpc, start: '2031-06-01' }));
    const list = await call(h.url, 'GET', `/v1/programs/list/${biz}`, as(p));
    expect(list.status, list.text).toBe(200);
    expect(list.body.businesses).toEqual([
      expect.objectContaining({
        yelp_business_id: biz,
        destination_yelp_business_id: null,
        advertiser_status: 'CURRENT_ADVERTISER',
        partner_business_id: null,
        total: 2,
      }),
    ]);
    expect(list.body.businesses[0].programs.map((x: any) => x.program_id)).toEqual([mine, future]);
    expect(list.body.businesses[0].programs[0]).toEqual({
      program_type: 'BP',
      program_id: mine,
      start_date: '2031-05-05',
      end_date: '2031-05-20',
      program_status: 'ACTIVE',
      program_pause_status: 'NOT_PAUSED',
      program_metrics: {
        budget: null,
        currency: 'USD',
        is_autobid: null,
        max_bid: null,
        billed_impressions: 0,
        billed_clicks: 0,
        ad_cost: 0,
        fee_period: 'Calendar Month',
      },
      future_budget_changes: [],
      active_features: [],
      available_features: ['LINK_TRACKING', 'CALL_TRACKING'],
    });
    const paged = await call(h.url, 'GET', `/v1/programs/list/${biz}?start=1&limit=1`, as(p));
    expect(paged.body.businesses[0].programs.map((x: any) => x.program_id)).toEqual([future]);
    expect((await call(h.url, 'GET', `/v1/programs/list/${biz}?limit=41`, as(p))).status).toBe(400);
    // Up to 200 ids in the path (repeats count once); 201 different ones are refused before any lookup.
    expect((await call(h.url, 'GET', `/v1/programs/list/${Array(200).fill(biz).join(',')}`, as(p))).body.businesses).toHaveLength(1);
    const tooMany = await call(h.url, 'GET', `/v1/programs/list/${Array.from({ length: 201 }, (_, i) => `biz-${i}`).join(',')}`, as(p));
    expect(tooMany.status).toBe(400);
    expect((await info(Array.from({ length: 201 }, (_, i) => `p${i}`).join(','))).status).toBe(400);
    // Another partner's program is exactly like an unknown one.
    const hidden = await info(`${mine},${theirs}`);
    const unknown = await info(`${mine},AAAAAAAAAAAAAAAAAAAAAA`);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(hidden.body.error.code).toBe(unknown.body.error.code);
    expect((await info(`${mine},${future}`)).body.programs.map((x: any) => x.program_id)).toEqual([mine, future]);
    // A business not linked to the caller (or unknown) in the list: 403.
    const stranger = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Stranger' }) })).body.id;
    expect((await call(h.url, 'GET', `/v1/programs/list/${biz},${stranger}`, as(p))).status).toBe(403);
    // The account listing, by status.
    const account = async (status: string) =>
      (await call(h.url, 'GET', `/programs/v1?program_status=${status}&limit=40`, as(p))).body.payment_programs.map(
        (x: any) => x.program_id,
      ) as string[];
    expect(await account('CURRENT')).toContain(mine);
    expect(await account('CURRENT')).not.toContain(future);
    expect(await account('FUTURE')).toEqual(expect.arrayContaining([future]));
    expect(await account('ALL')).not.toContain(theirs);
    const current = (await call(h.url, 'GET', '/programs/v1', as(p))).body;
    expect(current).toMatchObject({ program_status: 'CURRENT', limit: 20, offset: 0, total: expect.any(Number) });
    expect(current.payment_programs[0].businesses).toEqual([{ yelp_business_id: expect.any(String), partner_business_id: null }]);
    // Past its end date (23:59 Pacific), on the pbs clock: INACTIVE and PAST.
    h.clock.set(Date.parse('2031-05-21T07:00:30Z'));
    await h.pbs.ctx.tasks.runDue();
    expect((await info(mine)).body.programs[0].program_status).toBe('INACTIVE');
    expect(await account('PAST')).toContain(mine);
    h.clock.set(T0);
  });

  it('holds jobs for the sandbox: PROCESSING (202) until released or completed by the operator', async () => {
    const biz = await business();
    expect((await admin(h.url, 'PUT', '/admin/v1/advertising/settings', { json: { hold_new_jobs: true } })).body).toEqual({
      hold_new_jobs: true,
    });
    const a = (await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${biz}&program_name=BP`, as(p))).body.job_id;
    const b = (await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${biz}&program_name=LOGO`, as(p))).body.job_id;
    await admin(h.url, 'PUT', '/admin/v1/advertising/settings', { json: { hold_new_jobs: false } });
    h.clock.advance(60_000);
    await h.pbs.ctx.tasks.runDue();
    expect((await status(a)).status).toBe(202);
    const listed = (await admin(h.url, 'GET', `/admin/v1/advertising/jobs?partner_id=${p.partner.id}&status=PROCESSING`)).body.jobs;
    expect(listed.map((j: any) => j.job_id)).toEqual(expect.arrayContaining([a, b]));
    expect(listed.find((j: any) => j.job_id === a)).toMatchObject({ held: true, status: 'PROCESSING' });
    const completed = await admin(h.url, 'POST', `/admin/v1/advertising/jobs/${a}/complete`);
    expect(completed.body).toMatchObject({ job_id: a, status: 'COMPLETED', held: false });
    expect((await status(a)).status).toBe(200);
    await admin(h.url, 'POST', `/admin/v1/advertising/jobs/${b}/release`);
    await h.pbs.ctx.tasks.runDue();
    expect((await status(b)).status).toBe(200);
    expect((await admin(h.url, 'POST', `/admin/v1/advertising/jobs/${b}/hold`)).status).toBe(409);
    // A job held after it was written (before its delay passed) waits too.
    const c = (await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${biz}&program_name=CTA`, as(p))).body.job_id;
    await admin(h.url, 'POST', `/admin/v1/advertising/jobs/${c}/hold`);
    await process();
    expect((await status(c)).status).toBe(202);
    const programs = (await admin(h.url, 'GET', `/admin/v1/advertising/programs?business_id=${biz}`)).body.programs;
    expect(programs.map((x: any) => x.program_type).sort()).toEqual(['BP', 'LOGO']);
  });

  it('tells the owner of jobs and programs through the opt-in advertising webhook types', async () => {
    const receiver = new Receiver();
    const url = await receiver.start();
    receiver.behaviour = Receiver.echoing();
    try {
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
        json: { url, client_id: 'ads', event_types: ['ADVERTISING_JOB_COMPLETED_EVENT', 'ADVERTISING_PROGRAM_UPDATED_EVENT'] },
      });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
      const biz = await business();
      const r = await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${biz}&${new URLSearchParams(cpc)}`, as(p));
      await process();
      const id = (await status(r.body.job_id)).body.business_results[0].update_results.program_added.program_id.requested_value;
      expect((await call(h.url, 'POST', `/program/${id}/pause/v1`, as(p))).status).toBe(202);
      await h.pbs.deliverWebhooks();
      // Events of earlier tests are relayed now too: look at this business's.
      const updates = receiver
        .posts()
        .map((post) => JSON.parse(post.body))
        .filter((u) => u.data.id === biz);
      const of = (type: string) => updates.filter((u) => u.data.updates[0].event_type === type).map((u) => u.data.updates[0]);
      expect(of('ADVERTISING_JOB_COMPLETED_EVENT')).toEqual([
        {
          event_type: 'ADVERTISING_JOB_COMPLETED_EVENT',
          event_id: expect.any(String),
          job_id: r.body.job_id,
          status: 'COMPLETED',
          identifier_type: 'BUSINESS',
          identifier: biz,
          result_status: 'COMPLETED',
          completed_at: expect.stringMatching(/^2031-05-05T\d{2}:\d{2}:\d{2}\+00:00$/),
        },
      ]);
      expect(of('ADVERTISING_PROGRAM_UPDATED_EVENT').map((u) => [u.change, u.program_id, u.program_pause_status])).toEqual(
        expect.arrayContaining([
          ['CREATED', id, 'NOT_PAUSED'],
          ['PAUSED', id, 'PAUSED'],
        ]),
      );
      expect(updates[0]).toMatchObject({ object: 'business', data: { id: biz }, time: expect.stringMatching(/\+00:00$/) });
    } finally {
      await admin(h.url, 'DELETE', `/admin/v1/partners/${p.partner.id}/webhook`);
      await receiver.stop();
    }
  });

  it('imports metrics in batches, reporting progress (as the CLI prints it)', async () => {
    const id = programOf(await created({ business_id: await business(), program_name: 'BP' }));
    const lines = Array.from({ length: 2500 }, (_, i) =>
      JSON.stringify({
        program_id: id,
        date: `2031-${String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
        billed_clicks: 1,
      }),
    );
    const progress: Array<[number, number]> = [];
    const result = await h.pbs.services.advertising.operator.importMetrics(lines.join('\n'), {
      maxLines: 5000,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(result).toEqual({ imported: 2500 });
    expect(progress).toEqual([
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
    // 2,500 lines name 336 distinct days (12 months × 28): a day given again replaces its figures.
    expect((await info(id)).body.programs[0].program_metrics.billed_clicks).toBe(336);
    const tooMany = await admin(h.url, 'POST', '/admin/v1/advertising/metrics', {
      body: Array.from({ length: 10_001 }, () => lines[0]).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(tooMany.status).toBe(413);
  });

  it('validates the operator’s input', async () => {
    const biz = await business();
    for (const [method, path, json] of [
      ['PUT', `/admin/v1/advertising/businesses/${biz}/flags`, { removed_from_search: 'yes' }],
      ['PUT', '/admin/v1/advertising/promotions/BAD', { program_types: ['BILLBOARD'] }],
      ['PUT', '/admin/v1/advertising/promotions/BAD', { min_budget: 5000, max_budget: 100 }],
      ['PUT', '/admin/v1/advertising/promotions/BAD', { months: 0 }],
      ['PUT', '/admin/v1/advertising/settings', { hold_new_jobs: 'sometimes' }],
    ] as const) {
      const r = await admin(h.url, method, path, { json });
      expect(r.status, `${path} ${JSON.stringify(json)}: ${r.text}`).toBe(400);
    }
    expect((await admin(h.url, 'PUT', '/admin/v1/advertising/businesses/nope/flags', { json: {} })).status).toBe(404);
    expect((await admin(h.url, 'DELETE', '/admin/v1/advertising/category-policy/never_declined')).status).toBe(404);
    expect((await admin(h.url, 'POST', '/admin/v1/advertising/jobs/nope/complete')).status).toBe(404);
  });
});
