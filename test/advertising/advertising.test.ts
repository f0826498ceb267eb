import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, dialects, sampleBusiness, type Harness, type TestPartner } from '../support/harness.js';
import { JobStatus, type JobReceipt } from '../../src/advertising/advertising-receipts.js';
import type { AdvertisingStore } from '../../src/advertising/advertising-store.js';
import { advertisingHelpers, startAdvertising } from './fixture.js';

// The harness clock: Monday 2031-05-05 16:00 UTC, 09:00 in Los Angeles.
const COMPLETED = (requested_value: unknown) => ({ status: 'COMPLETED', requested_value });

/** Issue 14, first slice: create and end programs through jobs; poll receipts. */
describe.each(dialects)('advertising on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let other: TestPartner;

  beforeAll(async () => {
    ({ h, p, other } = await startAdvertising(dialect));
  });
  afterAll(() => h.close());

  const { business, as, process, status } = advertisingHelpers(() => ({ h, p, other }), {
    name: 'Advertised',
    specialties: 'Wood-fired pizza since 1990',
  });
  const create = (params: Record<string, string>, q = p) =>
    call(h.url, 'POST', `/v1/reseller/program/create?${new URLSearchParams(params)}`, as(q));
  const receiptOf = async (params: Record<string, string>, q = p) => {
    const created = await create(params, q);
    expect(created.status, created.text).toBe(200);
    await process();
    const r = await status(created.body.job_id, q);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  it('creates a program: PROCESSING with 202 and Retry-After, then the COMPLETED receipt field by field', async () => {
    const biz = await business();
    const created = await create({ business_id: biz, program_name: 'BP', start: '2031-05-10', end: '2031-05-31' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ job_id: expect.any(String) });
    const pending = await status(created.body.job_id);
    expect(pending.status).toBe(202);
    expect(pending.headers.get('retry-after')).toBe('1');
    expect(pending.body).toMatchObject({
      status: 'PROCESSING',
      completed_at: null,
      business_results: [
        {
          status: 'PROCESSING',
          identifier_type: 'BUSINESS',
          identifier: biz,
          update_results: { program_added: { program_name: { status: 'PROCESSING', requested_value: 'BP' } } },
        },
      ],
    });
    const startedAt = pending.body.created_at;
    await process();
    const done = await status(created.body.job_id);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      status: 'COMPLETED',
      created_at: startedAt,
      completed_at: '2031-05-05T16:00:02+00:00',
      business_results: [
        {
          status: 'COMPLETED',
          identifier_type: 'BUSINESS',
          identifier: biz,
          update_results: {
            program_added: {
              start: COMPLETED('2031-05-10'),
              end: COMPLETED('2031-05-31'),
              program_name: COMPLETED('BP'),
              program_id: COMPLETED(expect.any(String)),
              yelp_business_id: COMPLETED(biz),
              svc_business_id: COMPLETED(biz),
            },
          },
        },
      ],
    });
    expect(startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
  });

  it('adds is_autobid, max_bid and budget for CPC (docs/contract/advertising.md §8.4), from the query string or a form body', async () => {
    const biz = await business();
    const receipt = await receiptOf({
      business_id: biz,
      program_name: 'CPC',
      start: '2031-08-01',
      end: '2031-08-31',
      budget: '20000',
      is_autobid: 'false',
      max_bid: '500',
    });
    // docs/contract/advertising.md §8.4's creation receipt, key by key (plus svc_business_id, the spec's name).
    expect(receipt.business_results).toEqual([
      {
        status: 'COMPLETED',
        identifier_type: 'BUSINESS',
        identifier: biz,
        update_results: {
          program_added: {
            start: COMPLETED('2031-08-01'),
            end: COMPLETED('2031-08-31'),
            program_name: COMPLETED('CPC'),
            program_id: COMPLETED(expect.stringMatching(/^[A-Za-z0-9]{22}$/)),
            yelp_business_id: COMPLETED(biz),
            svc_business_id: COMPLETED(biz),
            is_autobid: COMPLETED(false),
            max_bid: COMPLETED(500),
            budget: COMPLETED(20000),
          },
        },
      },
    ]);
    expect(Object.keys(receipt)).toEqual(['status', 'created_at', 'completed_at', 'business_results']);
    const formBiz = await business();
    const byForm = await call(h.url, 'POST', '/v1/reseller/program/create', {
      ...as(p),
      form: { business_id: formBiz, program_name: 'EP' },
    });
    expect(byForm.status, byForm.text).toBe(200);
  });

  it('rejects keys in the receipt: missing CPC keys, prices that are not whole cents or too low, dates in the past', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ program_name: 'CPC', is_autobid: 'true' }, 'budget', 'INVALID_OR_MISSING_KEY'],
      [{ program_name: 'CPC', budget: '20000' }, 'is_autobid', 'INVALID_OR_MISSING_KEY'],
      [{ program_name: 'CPC', budget: '20000', is_autobid: 'false' }, 'max_bid', 'INVALID_OR_MISSING_KEY'],
      [{ program_name: 'CPC', budget: '20000', is_autobid: 'false', max_bid: '25.50' }, 'max_bid', 'INVALID_PRICE'],
      [{ program_name: 'CPC', budget: '20000', is_autobid: 'false', max_bid: '49' }, 'max_bid', 'INVALID_PRICE'],
      [{ program_name: 'CPC', budget: '2499', is_autobid: 'true' }, 'budget', 'INVALID_PRICE'],
      [{ program_name: 'BP', start: '2031-05-01' }, 'start', 'CANNOT_ADD_PROGRAM_IN_PAST'],
      [{ program_name: 'BP', end: '2031-05-04' }, 'end', 'CANNOT_ADD_PROGRAM_IN_PAST'],
    ];
    for (const [params, key, code] of cases) {
      const biz = await business();
      const result = (await receiptOf({ business_id: biz, ...params })).business_results[0];
      const what = JSON.stringify(params);
      expect(result.status, what).toBe('COMPLETED');
      const added = result.update_results.program_added;
      expect(added[key], what).toMatchObject({ status: 'REJECTED', error: { code, message: expect.any(String) } });
      for (const [other, value] of Object.entries(added)) {
        if (other !== key) expect(value, `${what} ${other}`).toMatchObject({ status: 'REJECTED', error: { code: 'PARENT_WAS_REJECTED' } });
      }
      expect(added.program_id.requested_value).toBeNull();
    }
  });

  it('rejects CPC for a business without categories, and a closed business as a whole', async () => {
    const bare = await business({ categories: [] });
    const noCategories = (await receiptOf({ business_id: bare, program_name: 'CPC', budget: '20000', is_autobid: 'true' }))
      .business_results[0];
    expect(noCategories.update_results.program_added.program_name.error.code).toBe('NO_CATEGORIES');
    const closed = await business({ is_closed: true });
    const result = (await receiptOf({ business_id: closed, program_name: 'BP' })).business_results[0];
    expect(result).toEqual({
      status: 'REJECTED',
      identifier_type: 'BUSINESS',
      identifier: closed,
      error: { message: expect.any(String), code: 'BUSINESS_NOT_ACTIVE' },
    });
  });

  it('allows one active program of a type per business: the same partner again, or another provider, is rejected', async () => {
    const biz = await business({}, true);
    expect(
      (await receiptOf({ business_id: biz, program_name: 'BP' })).business_results[0].update_results.program_added.program_id.status,
    ).toBe('COMPLETED');
    const again = (await receiptOf({ business_id: biz, program_name: 'BP' })).business_results[0];
    expect(again.update_results.program_added.program_name.error.code).toBe('PROGRAM_ALREADY_REQUESTED');
    const byOther = (await receiptOf({ business_id: biz, program_name: 'BP' }, other)).business_results[0];
    expect(byOther.update_results.program_added.program_name.error.code).toBe('PROGRAM_ALREADY_RUNNING_BY_ANOTHER_PROVIDER');
    expect(
      (await receiptOf({ business_id: biz, program_name: 'LOGO' })).business_results[0].update_results.program_added.program_id.status,
    ).toBe('COMPLETED');
  });

  it('applies 200 concurrent creates for one business and type exactly once', async () => {
    const biz = await business();
    const jobs = await Promise.all(Array.from({ length: 200 }, () => create({ business_id: biz, program_name: 'LOGO' })));
    for (const job of jobs) expect(job.status, job.text).toBe(200);
    await process();
    const codes: string[] = [];
    for (const job of jobs) {
      const added = (await status(job.body.job_id)).body.business_results[0].update_results.program_added;
      codes.push(added.program_id.status === 'COMPLETED' ? 'CREATED' : added.program_name.error.code);
    }
    expect(codes.filter((c) => c === 'CREATED')).toHaveLength(1);
    expect(codes.filter((c) => c === 'PROGRAM_ALREADY_REQUESTED')).toHaveLength(199);
    const rows = await h.database.db.selectFrom('ad_programs').select('id').where('business_id', '=', biz).execute();
    expect(rows).toHaveLength(1);
  });

  it('ends a program at once; ending it again is PROGRAM_HAS_EXPIRED; the type may be bought again from the next day', async () => {
    const biz = await business();
    const programId = (await receiptOf({ business_id: biz, program_name: 'CTA' })).business_results[0].update_results.program_added
      .program_id.requested_value;
    const end = async () => {
      const r = await call(h.url, 'POST', `/v1/reseller/program/${programId}/end`, as(p));
      expect(r.status, r.text).toBe(200);
      await process();
      return (await status(r.body.job_id)).body.business_results[0];
    };
    expect(await end()).toEqual({
      status: 'COMPLETED',
      identifier_type: 'PROGRAM',
      identifier: programId,
      update_results: { program_ended: COMPLETED(programId) },
    });
    expect(await end()).toEqual({
      status: 'REJECTED',
      identifier_type: 'PROGRAM',
      identifier: programId,
      error: { message: expect.any(String), code: 'PROGRAM_HAS_EXPIRED' },
    });
    const sameDay = (await receiptOf({ business_id: biz, program_name: 'CTA' })).business_results[0].update_results.program_added;
    expect(sameDay.program_name.error.code).toBe('CONFLICTS_WITH_ANOTHER_ACTIVE_PROGRAM');
    const nextDay = (await receiptOf({ business_id: biz, program_name: 'CTA', start: '2031-05-06' })).business_results[0].update_results
      .program_added;
    expect(nextDay.program_id.status).toBe('COMPLETED');
  });

  /** Creates a program for a new business and answers its id. */
  const program = async (params: Record<string, string>) => programOf(await business(), params);
  /** A program of `params` for that business; answers its id. */
  const programOf = async (biz: string, params: Record<string, string>) => {
    const added = (await receiptOf({ business_id: biz, ...params })).business_results[0].update_results.program_added;
    expect(added.program_id.status, JSON.stringify(added)).toBe('COMPLETED');
    return added.program_id.requested_value as string;
  };
  const editReceipt = async (programId: string, params: Record<string, string>) => {
    const r = await call(h.url, 'POST', `/v1/reseller/program/${programId}/edit?${new URLSearchParams(params)}`, as(p));
    expect(r.status, r.text).toBe(200);
    const pending = await status(r.body.job_id);
    expect(pending.status).toBe(202);
    expect(pending.body.business_results[0]).toMatchObject({ status: 'PROCESSING', identifier_type: 'PROGRAM', identifier: programId });
    await process();
    return (await status(r.body.job_id)).body.business_results[0];
  };

  it('edits a program: program_modified with program_id and the changed keys', async () => {
    const id = await program({ program_name: 'CPC', budget: '20000', is_autobid: 'false', max_bid: '500', start: '2031-06-01' });
    expect(await editReceipt(id, { budget: '30000', max_bid: '600', end: '2031-07-31' })).toEqual({
      status: 'COMPLETED',
      identifier_type: 'PROGRAM',
      identifier: id,
      update_results: {
        program_modified: { program_id: COMPLETED(id), budget: COMPLETED(30000), max_bid: COMPLETED(600), end: COMPLETED('2031-07-31') },
      },
    });
    const row = await h.database.db.selectFrom('ad_programs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ budget: 30000, max_bid: 600, end_date: '2031-07-31' });
  });

  it('rejects edits that the rules forbid, changing nothing', async () => {
    const autobid = await program({ program_name: 'CPC', budget: '20000', is_autobid: 'true' });
    const started = await program({ program_name: 'BP' });
    const cases: Array<[string, Record<string, string>, string, string]> = [
      [autobid, { max_bid: '100' }, 'max_bid', 'COULD_NOT_MODIFY_PROGRAM'],
      [autobid, { budget: '12.5' }, 'budget', 'INVALID_PRICE'],
      [autobid, { budget: '100' }, 'budget', 'INVALID_PRICE'],
      [autobid, { pacing_method: 'unpaced' }, 'pacing_method', 'COULD_NOT_MODIFY_PROGRAM'],
      [started, { start: '2031-06-01' }, 'start', 'COULD_NOT_MODIFY_PROGRAM'],
      [started, { end: '2031-05-01' }, 'end', 'COULD_NOT_MODIFY_PROGRAM'],
    ];
    for (const [id, params, key, code] of cases) {
      const result = await editReceipt(id, params);
      expect(result.update_results.program_modified[key], JSON.stringify(params)).toMatchObject({ status: 'REJECTED', error: { code } });
      expect(result.update_results.program_modified.program_id).toMatchObject({
        status: 'REJECTED',
        error: { code: 'PARENT_WAS_REJECTED' },
      });
    }
    expect(
      (await h.database.db.selectFrom('ad_programs').select('budget').where('id', '=', autobid).executeTakeFirstOrThrow()).budget,
    ).toBe(20000);
    const nothing = await call(h.url, 'POST', `/v1/reseller/program/${autobid}/edit`, as(p));
    expect(nothing.status).toBe(400);
  });

  it('rejects edits of a program past its end date (23:59 Pacific) with PROGRAM_HAS_EXPIRED', async () => {
    const id = await program({ program_name: 'EP', end: '2031-05-06' });
    h.clock.set(Date.parse('2031-05-07T06:59:00Z')); // 23:59 Pacific on the 6th: still running
    expect((await editReceipt(id, { budget: '5000' })).status).toBe('COMPLETED');
    h.clock.set(Date.parse('2031-05-07T07:00:01Z')); // just past the end of the 6th, Pacific
    expect(await editReceipt(id, { budget: '6000' })).toMatchObject({ status: 'REJECTED', error: { code: 'PROGRAM_HAS_EXPIRED' } });
    h.clock.set(Date.parse('2031-05-05T16:00:00Z'));
  });

  it('starts programs at 00:00 and ends them at 23:59 Pacific; a rolling month prorates nothing; fee_period is fixed once started', async () => {
    const account = async (status: string) =>
      (await call(h.url, 'GET', `/programs/v1?program_status=${status}&limit=40`, as(p))).body.payment_programs.map(
        (x: any) => x.program_id,
      ) as string[];
    // A bid of 2,500 fits a rolling month's 2,600; from May 6th a calendar month leaves 2,600 × 26/31 = 2,180.
    const calendar = (
      await receiptOf({
        business_id: await business(),
        program_name: 'CPC',
        budget: '2600',
        is_autobid: 'false',
        max_bid: '2500',
        start: '2031-05-06',
      })
    ).business_results[0].update_results.program_added;
    expect(calendar.max_bid.error.code).toBe('BID_TOO_HIGH_FOR_BUDGET');
    const id = await program({
      program_name: 'CPC',
      budget: '2600',
      is_autobid: 'false',
      max_bid: '2500',
      fee_period: 'ROLLING_MONTH',
      start: '2031-05-06',
    });
    expect(await account('FUTURE')).toContain(id);
    h.clock.set(Date.parse('2031-05-06T06:59:59Z')); // 23:59:59 on the 5th in Los Angeles
    expect(await account('FUTURE')).toContain(id);
    h.clock.set(Date.parse('2031-05-06T07:00:00Z')); // midnight Pacific
    expect(await account('CURRENT')).toContain(id);
    const result = await editReceipt(id, { fee_period: 'CALENDAR_MONTH' });
    expect(result.update_results.program_modified.fee_period).toMatchObject({
      status: 'REJECTED',
      error: { code: 'COULD_NOT_MODIFY_PROGRAM' },
    });
    h.clock.set(Date.parse('2031-05-05T16:00:00Z'));
  });

  it('files every program alike in every listing: not started, running, ended early, past its end date (§8.7)', async () => {
    const [future, running, endedEarly, expired] = [await business(), await business(), await business(), await business()];
    const ids = {
      future: await programOf(future, { program_name: 'CTA', start: '2031-05-10' }),
      running: await programOf(running, { program_name: 'CTA' }),
      endedEarly: await programOf(endedEarly, { program_name: 'CTA', end: '2031-05-31' }),
      expired: await programOf(expired, { program_name: 'CTA', end: '2031-05-06' }),
    };
    const ended = await call(h.url, 'POST', `/v1/reseller/program/${ids.endedEarly}/end`, as(p));
    expect(ended.status, ended.text).toBe(200);
    await process(); // ended on Monday 2031-05-05, Los Angeles time
    h.clock.set(Date.parse('2031-05-07T16:00:00Z')); // Wednesday 09:00 in Los Angeles
    try {
      const expected = {
        future: { program_status: 'INACTIVE', start_date: '2031-05-10', end_date: null, phase: 'FUTURE', advertiser: 'CURRENT_ADVERTISER' },
        running: { program_status: 'ACTIVE', start_date: '2031-05-05', end_date: null, phase: 'CURRENT', advertiser: 'CURRENT_ADVERTISER' },
        endedEarly: {
          program_status: 'INACTIVE',
          start_date: '2031-05-05',
          end_date: '2031-05-05',
          phase: 'PAST',
          advertiser: 'PAST_ADVERTISER',
        },
        expired: {
          program_status: 'INACTIVE',
          start_date: '2031-05-05',
          end_date: '2031-05-06',
          phase: 'PAST',
          advertiser: 'PAST_ADVERTISER',
        },
      } as const;
      const businesses = { future, running, endedEarly, expired };
      const listed = (await call(h.url, 'GET', `/v1/programs/list/${Object.values(businesses).join(',')}`, as(p))).body.businesses;
      const info = (await call(h.url, 'GET', `/v1/programs/info/${Object.values(ids).join(',')}`, as(p))).body.programs;
      const accountLists: Record<string, string[]> = {};
      for (const status of ['CURRENT', 'FUTURE', 'PAST', 'ALL'])
        accountLists[status] = (
          await call(h.url, 'GET', `/programs/v1?program_status=${status}&limit=40`, as(p))
        ).body.payment_programs.map((x: any) => x.program_id);
      for (const [name, want] of Object.entries(expected)) {
        const id = ids[name as keyof typeof ids];
        const shape = { program_id: id, program_status: want.program_status, start_date: want.start_date, end_date: want.end_date };
        const byBusiness = listed.find((b: any) => b.yelp_business_id === businesses[name as keyof typeof businesses]);
        expect(byBusiness.programs, name).toEqual([expect.objectContaining(shape)]);
        expect(byBusiness.advertiser_status, name).toBe(want.advertiser);
        expect(
          info.find((x: any) => x.program_id === id),
          name,
        ).toMatchObject(shape);
        const account = (await call(h.url, 'GET', '/programs/v1?program_status=ALL&limit=40', as(p))).body.payment_programs;
        expect(
          account.find((x: any) => x.program_id === id),
          name,
        ).toMatchObject(shape);
        for (const status of ['CURRENT', 'FUTURE', 'PAST'])
          expect(accountLists[status].includes(id), `${name} under ${status}`).toBe(status === want.phase);
        expect(accountLists.ALL, name).toContain(id);
      }
    } finally {
      h.clock.set(Date.parse('2031-05-05T16:00:00Z'));
    }
  });

  it('says which business a business was moved or merged into (business_migration_info, destination_yelp_business_id)', async () => {
    const target = await business();
    const moved = await business({ migrated_to: target });
    const info = await call(h.url, 'GET', `/v1/business_migration_info/${moved},${target}`, as(p));
    expect(info.status, info.text).toBe(200);
    expect(info.body).toEqual({
      businesses: [
        { yelp_business_id: moved, destination_yelp_business_id: target, is_migrated: true },
        { yelp_business_id: target, destination_yelp_business_id: null, is_migrated: false },
      ],
    });
    const listed = (await call(h.url, 'GET', `/v1/programs/list/${moved}`, as(p))).body.businesses;
    expect(listed[0]).toMatchObject({ yelp_business_id: moved, destination_yelp_business_id: target });
    // Like every business-scoped call: a business not linked to the caller is refused, an unknown one too.
    const stranger = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Not linked' }) })).body.id;
    for (const id of [stranger, 'no-such-business']) {
      const refused = await call(h.url, 'GET', `/v1/business_migration_info/${id}`, as(p));
      expect(refused.status, refused.text).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
    }
  });

  it('pauses and resumes a running CPC program (202, empty body); refuses the rest with a clear 4xx', async () => {
    const id = await program({ program_name: 'CPC', budget: '20000', is_autobid: 'true' });
    const post = (action: string, programId = id, q = p) => call(h.url, 'POST', `/program/${programId}/${action}/v1`, as(q));
    const paused = await post('pause');
    expect(paused.status).toBe(202);
    expect(paused.text).toBe('');
    expect(
      (await h.database.db.selectFrom('ad_programs').select('pause_status').where('id', '=', id).executeTakeFirstOrThrow()).pause_status,
    ).toBe('PAUSED');
    expect((await post('pause')).body.error.code).toBe('CONFLICT');
    expect((await post('resume')).status).toBe(202);
    expect((await post('resume')).status).toBe(409);
    expect((await post('pause', await program({ program_name: 'BP' }))).status).toBe(400);
    expect((await post('pause', id, other)).status).toBe(404);
    // With an Idempotency-Key the answer is stored with the change: a retry replays the 202.
    const keyed = () => call(h.url, 'POST', `/program/${id}/pause/v1`, { ...as(p), headers: { 'idempotency-key': `pause-${id}` } });
    expect((await keyed()).status).toBe(202);
    const replay = await keyed();
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe('');
  });

  it('refuses malformed requests with 400, and hides other partners’ jobs and programs (404)', async () => {
    const biz = await business();
    for (const params of [
      { business_id: biz },
      { business_id: biz, program_name: 'BILLBOARD' },
      { business_id: biz, program_name: 'BP', start: '2031-5-10' },
      { business_id: biz, program_name: 'CPC', is_autobid: 'maybe' },
      { business_id: biz, program_name: 'CPC', is_autobid: 'true', pacing_method: 'unpaced' },
      { business_id: biz, program_name: 'BP', currency: 'dollars' },
      { business_id: biz, program_name: 'BP', fee_period: 'WEEKLY' },
      { business_id: biz, program_name: 'BP', promotion_code: 'x'.repeat(201) },
      { business_id: biz, program_name: 'CPC', ad_categories: Array.from({ length: 51 }, (_, i) => `c${i}`).join(',') },
      { program_name: 'BP' },
    ]) {
      const r = await create(params as unknown as Record<string, string>);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
    const job = (await create({ business_id: biz, program_name: 'BP' })).body.job_id;
    const theirs = await status(job, other);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect((await status('AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    // Kept once its owner polled it (answered without the database): still 404 to the other partner.
    expect((await status(job)).status).toBe(202);
    expect((await status(job, other)).body.error.code).toBe('NOT_FOUND');
    await process();
    expect((await status(job)).status).toBe(200);
    const completed = await status(job, other);
    expect([completed.status, completed.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const programId = (await status(job)).body.business_results[0].update_results.program_added.program_id.requested_value;
    expect((await call(h.url, 'POST', `/v1/reseller/program/${programId}/end`, as(other))).status).toBe(404);
    // A business not linked to the caller: 403 before any job exists.
    const unlinked = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Not Yours' }) })).body.id;
    const refused = await create({ business_id: unlinked, program_name: 'BP' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('AUTHORIZATION_ERROR');
  });

  // Job status polls that find no verdict kept share one read of the job (ADR 0007, coalesced misses).
  /** A JobStatus over the server's own store, counting the job reads that reach the database. */
  const counted = () => {
    let reads = 0;
    const store = () => {
      const real = h.pbs.services.advertising.jobs.store();
      const counting: AdvertisingStore = Object.create(real);
      counting.findJob = (id: string) => {
        reads++;
        return real.findJob(id);
      };
      return counting;
    };
    return { status: new JobStatus(store), reads: () => reads };
  };
  // A read may answer at once or in a promise: both settle to the receipt.
  const all = (receipts: Array<JobReceipt | Promise<JobReceipt>>) => Promise.all(receipts.map(async (r) => r));

  it('reads a job once however many polls miss at the same time, and again after this process completes it', async () => {
    const created = await create({ business_id: await business(), program_name: 'BP' });
    expect(created.status, created.text).toBe(200);
    const jobId: string = created.body.job_id;
    const { status, reads } = counted();

    const polls = await all(Array.from({ length: 20 }, () => status.read(p.partner.id, jobId)));
    expect(reads()).toBe(1);
    expect(new Set(polls.map((r) => r.statusCode))).toEqual(new Set([202]));
    expect(new Set(polls.map((r) => r.body.toString()))).toHaveProperty('size', 1);

    // Another partner's misses join the same read and are refused all the same.
    status.forget(jobId);
    const mixed = [status.read(p.partner.id, jobId), status.read(other.partner.id, jobId)];
    await expect(mixed[1]).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await mixed[0]).statusCode).toBe(202);
    expect(reads()).toBe(2);

    // A read begun before this process commits the completion is not joined by later polls, and
    // its PROCESSING is not kept.
    status.forget(jobId);
    const early = status.read(p.partner.id, jobId);
    status.forget(jobId);
    await process();
    const later = await status.read(p.partner.id, jobId);
    expect((await early).statusCode).toBe(202);
    expect(later.statusCode).toBe(200);
    expect(reads()).toBe(4);
  });
});
