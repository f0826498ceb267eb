import { ok, pollJob, type PbsClient } from '@pbs/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  answered,
  businessUserToken,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  partnerClient,
  startPbs,
  type Harness,
  type TestPartner,
} from '../support/harness.js';
import { Receiver, type Received } from '../support/receiver.js';
import { eventually } from '../support/wait.js';
import { milestonesOf, refutedOf, reportOf, type Drill } from './reports.js';

const ALL_DAY = [
  { hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359', is_overnight: false })) },
];
/** The harness clock is 2031-05-05: a program ending the day before is rejected (CANNOT_ADD_PROGRAM_IN_PAST). */
const PAST = '2031-05-04';

/**
 * Issue 45: the interfaces beyond reservations, each turned green by a client that follows the
 * contract (the SDK, which polls a job at its Retry-After), and the webhook drill's second half:
 * a receiver that acts on each message once passes, one that acts on every copy fails.
 */
describe.each(dialects)('launch readiness of every interface on %s', (dialect) => {
  let h: Harness;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    h = await startPbs(dialect, {
      env: { PBS_AD_JOB_DELAY_MS: '2000', PBS_RATE_LIMIT_PER_SECOND: '1000', PBS_WEBHOOK_TIMEOUT_MS: '2000', PBS_WEBHOOK_POLL_MS: '50' },
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await h.close();
  });

  const report = (partner: TestPartner) => reportOf(h.url, partner);
  const milestones = milestonesOf;
  const refuted = refutedOf;
  /** The SDK's job poll, its sleeps also letting the job's processing time pass on pbs's clock. */
  const poll = (pbs: PbsClient, jobId: string) =>
    pollJob(pbs, jobId, {
      sleep: async (ms) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        h.clock.advance(2000);
        await h.pbs.ctx.tasks.runDue();
      },
    });
  const createProgram = (pbs: PbsClient, query: { business_id: string; program_name: 'BP'; end?: string }) =>
    ok(pbs.POST('/v1/reseller/program/create', { params: { query } }));

  it('turns advertising, subscriptions, waitlist, private reviews, engagement and leads green for a client that follows the contract', async () => {
    const interfaces = ['advertising', 'business_subscriptions', 'waitlist', 'private_reviews', 'engagement', 'leads'];
    // WEBHOOK subscriptions need the webhooks interface too (its milestones are the drill's, below).
    const good = await createPartner(h.url, [...interfaces, 'webhooks'], 'Every Interface');
    const business = (await linkedBusiness(h.url, [good.partner.id], { name: 'Everything Diner' })).id;

    // Advertising: a program whose job is polled until done, at the Retry-After pbs asks for.
    const reseller = partnerClient(h.url, good, 'basic');
    const made = await createProgram(reseller, { business_id: business, program_name: 'BP' });
    expect((await poll(reseller, made.job_id)).status).toBe('COMPLETED');
    // A request rejected in its receipt: read, then sent again changed (no end in the past).
    const rejected = await createProgram(reseller, { business_id: business, program_name: 'BP', end: PAST });
    expect(JSON.stringify(await poll(reseller, rejected.job_id))).toContain('CANNOT_ADD_PROGRAM_IN_PAST');
    await poll(reseller, (await createProgram(reseller, { business_id: business, program_name: 'BP', end: '2031-12-31' })).job_id);

    // Business subscriptions: the list read back.
    const listed = await call(h.url, 'GET', '/v3/businesses/subscriptions?subscription_type=WEBHOOK', { token: good.apiKey.api_key });
    expect(listed.status, listed.text).toBe(200);

    // Waitlist: status, join (and the guest already in line), the visit, cancel.
    await admin(h.url, 'PUT', `/admin/v1/businesses/${business}/waitlist`, { json: { hours: ALL_DAY } });
    await admin(h.url, 'POST', `/admin/v1/businesses/${business}/waitlist/walk-ins`, { json: { party_size: 2 } });
    const waitlist = partnerClient(h.url, good);
    const path = { params: { path: { business_id: business } } };
    await ok(waitlist.GET('/v3/businesses/{business_id}/waitlist/status', path));
    const guest = { phone: '+14155550142', party_size: 2, name: 'Ada' };
    const visit = await ok(waitlist.POST('/v3/businesses/{business_id}/waitlist/visits', { ...path, body: guest }));
    const again = await answered(waitlist.POST('/v3/businesses/{business_id}/waitlist/visits', { ...path, body: guest }));
    expect(again.error?.code).toBe('ALREADY_IN_LINE');
    const visitPath = { params: { path: { visit_id: visit.visit_id } } };
    await ok(waitlist.GET('/v3/visits/{visit_id}', visitPath));
    expect((await waitlist.POST('/v3/visits/{visit_id}/cancel', visitPath)).response.status).toBe(204);

    // Private reviews and engagement, with the OAuth client's token (the SDK fetches it).
    const oauth = partnerClient(h.url, good, 'oauth');
    await ok(oauth.GET('/v3/private/businesses/{business_id}/reviews', path));
    const missing = await answered(
      oauth.GET('/v3/private/businesses/{business_id}/reviews', { params: { path: { business_id: 'gone' } } }),
    );
    expect(missing.error?.code).toBe('BUSINESS_NOT_FOUND');
    await ok(oauth.GET('/v3/businesses/engagement', { params: { query: { business_ids: [business] } } }));
    const tooMany = Array.from({ length: 21 }, (_, i) => `b${i}`);
    expect((await answered(oauth.GET('/v3/businesses/engagement', { params: { query: { business_ids: tooMany } } }))).error?.code).toBe(
      'INVALID_REQUEST',
    );

    // Leads, with a business user's token: the business advertises (the program above), a lead comes in.
    const user = await admin(h.url, 'POST', '/admin/v1/business-users', {
      json: { name: 'Diner Owner', email: `owner-${dialect}@owners.example.com`, business_ids: [business] },
    });
    expect(user.status, user.text).toBe(201);
    const owner = await businessUserToken(h.url, good, user.body.id);
    const { lead_id: leadId } = await h.pbs.services.leads.conversations.emit(business, {});
    const asOwner = { token: owner };
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}`, asOwner)).status).toBe(200);
    expect((await call(h.url, 'GET', `/v3/leads/${leadId}/events`, asOwner)).status).toBe(200);
    const reply = { request_content: 'We can come Thursday.', request_type: 'TEXT' };
    expect((await call(h.url, 'POST', `/v3/leads/${leadId}/events`, { ...asOwner, json: reply })).status).toBe(201);
    expectCode(await call(h.url, 'POST', `/v3/leads/${leadId}/events`, { ...asOwner, json: reply }), 400, 'SAME_SUCCESSIVE_MESSAGE');

    const final = await report(good);
    for (const name of interfaces) {
      const entry = final.interfaces.find((i) => i.interface === name);
      const reds = entry?.milestones.filter((m) => m.status !== 'green');
      expect(reds, `${name}: ${JSON.stringify(reds)}`).toEqual([]);
      expect(entry?.score).toBe(100);
    }
    expect(refuted(final)).toEqual([]);
  });

  describe('an advertising client that breaks one rule turns that milestone red', () => {
    it('a job polled twice within a second', async () => {
      const bad = await createPartner(h.url, ['advertising']);
      const business = (await linkedBusiness(h.url, [bad.partner.id], { name: 'Polled Too Often' })).id;
      const reseller = partnerClient(h.url, bad, 'basic');
      const made = await createProgram(reseller, { business_id: business, program_name: 'BP' });
      for (let i = 0; i < 2; i++) await reseller.GET('/v1/reseller/status/{job_id}', { params: { path: { job_id: made.job_id } } });
      const reds = refuted(await report(bad));
      expect(reds.map((m) => m.id)).toEqual(['advertising.job_polled']);
      expect(reds[0].problem).toMatch(/^polled \d+ ms after the last poll$/);
    });

    it('a rejected request sent again unchanged', async () => {
      const bad = await createPartner(h.url, ['advertising']);
      const business = (await linkedBusiness(h.url, [bad.partner.id], { name: 'Resubmitted' })).id;
      const reseller = partnerClient(h.url, bad, 'basic');
      const request = { business_id: business, program_name: 'BP' as const, end: PAST };
      await poll(reseller, (await createProgram(reseller, request)).job_id);
      expect(refuted(await report(bad))).toEqual([]);
      await createProgram(reseller, request);
      expect(refuted(await report(bad)).map((m) => [m.id, m.problem])).toEqual([
        ['advertising.rejected_read', 'sent again unchanged a request whose job was rejected'],
      ]);
    });
  });

  it('lists every partner most ready first, placed by the scoring task before anyone looked', async () => {
    const idle = await createPartner(h.url, ['reservations'], 'Idle Partner');
    const busy = await createPartner(h.url, ['reservations'], 'Busy Partner');
    const search = await call(
      h.url,
      'GET',
      '/v3/businesses/search?location=San%20Francisco&reservation_date=2031-05-07&reservation_time=19:00&reservation_covers=2',
      { token: busy.apiKey.api_key },
    );
    expect(search.status, search.text).toBe(200);
    const ranking = async () => {
      const r = await admin(h.url, 'GET', '/admin/v1/readiness/ranking?limit=100');
      expect(r.status, r.text).toBe(200);
      return r.body as { total: number; partners: Array<{ partner_id: string; score: number }> };
    };
    // Neither has had a report: not ranked until the task's walk reaches them.
    expect((await ranking()).partners.map((p) => p.partner_id)).not.toContain(idle.partner.id);
    h.clock.advance(60_000);
    await h.pbs.ctx.tasks.runDue();
    const ranked = await ranking();
    const order = ranked.partners.map((p) => p.partner_id);
    expect(order).toContain(idle.partner.id);
    expect(order.indexOf(busy.partner.id)).toBeLessThan(order.indexOf(idle.partner.id));
    const scoreOf = (id: string) => ranked.partners.find((p) => p.partner_id === id)?.score ?? -1;
    expect(scoreOf(busy.partner.id)).toBeGreaterThan(scoreOf(idle.partner.id));
    // Every partner is in it.
    expect(ranked.total).toBe((await admin(h.url, 'GET', '/admin/v1/partners?limit=1')).body.total);
    expectCode(await admin(h.url, 'GET', '/admin/v1/readiness/ranking?limit=101'), 400, 'VALIDATION_ERROR');
  });

  describe('the webhook drill watches what the receiver does with each copy', () => {
    /** A partner whose verified endpoint gets reservation events, its receiver acting on each as `act` says. */
    const hooked = async (act: (partner: TestPartner, delivery: Received) => Promise<void>) => {
      const partner = await createPartner(h.url, ['reservations', 'webhooks']);
      const receiver = new Receiver();
      const verify = Receiver.echoing(200);
      receiver.behaviour = (req, res) => {
        if (req.method !== 'POST') return verify(req, res);
        // Acts first, then answers: what it does is in the request log before the copy counts as answered.
        void act(partner, req).finally(() => verify(req, res));
      };
      receivers.push(receiver);
      const put = await admin(h.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/webhook`, {
        json: { url: await receiver.start(), client_id: partner.partner.id, event_types: ['RESERVATION_CREATED_EVENT'] },
      });
      expect(put.status, put.text).toBe(200);
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/webhook/verify`)).status).toBe(200);
      return { partner, receiver };
    };
    /** What a delivery makes the partner do: read the status of the reservation it names. */
    const readStatus = async (partner: TestPartner, delivery: Received) => {
      const [update] = JSON.parse(delivery.body).data.updates;
      await call(h.url, 'GET', `/v3/bookings/reservation/${update.reservation_id}/status`, { token: partner.apiKey.api_key });
    };
    const runDrill = async (partner: TestPartner) => {
      const started = await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/readiness/drills`, {
        json: { kind: 'webhook_duplicates' },
      });
      expect(started.status, started.text).toBe(201);
      // Copies go out after random delays of up to 2 s of pbs time; the drill then waits 5 s (pbs) for the receiver's calls.
      return eventually(
        async () => {
          await h.pbs.deliverWebhooks();
          h.clock.advance(1000);
          return (await admin(h.url, 'GET', `/admin/v1/readiness/drills/${started.body.id}`)).body as Drill;
        },
        (d) => d.state !== 'running',
        'the drill graded',
      );
    };

    it('passes a receiver that acts on each webhook-id once', async () => {
      const seen = new Set<string>();
      const { partner, receiver } = await hooked(async (p, delivery) => {
        const id = String(delivery.headers['webhook-id']);
        if (seen.has(id)) return;
        seen.add(id);
        await readStatus(p, delivery);
      });
      const drill = await runDrill(partner);
      expect(drill.state, JSON.stringify(drill)).toBe('passed');
      // Every message came twice, and was acted on once.
      expect(receiver.posts().length).toBe(10);
      expect(seen.size).toBe(5);
      // With its endpoint verified and every delivery answered in time, the webhooks interface is all green.
      const webhooks = (await report(partner)).interfaces.find((i) => i.interface === 'webhooks');
      expect(webhooks?.milestones.filter((m) => m.status !== 'green')).toEqual([]);
      expect(webhooks?.score).toBe(100);
    });

    it('fails a receiver that acts on every copy, naming the repeated call', async () => {
      const { partner } = await hooked(readStatus);
      const drill = await runDrill(partner);
      expect(drill.state).toBe('failed');
      const [outcome] = drill.milestones;
      expect(outcome.outcome).toBe('refuted');
      expect(outcome.problem).toMatch(
        /^acted twice on one message: GET \/v3\/bookings\/reservation\/\{reservation_id\}\/status again for test-reservation-\w+ \(request \S+ did it first\)$/,
      );
      const logged = await admin(h.url, 'GET', `/admin/v1/request-log?request_id=${outcome.evidence[0]}`);
      expect(logged.body.entries).toMatchObject([{ partner_id: partner.partner.id }]);
      expect(milestones(await report(partner)).get('webhooks.duplicates')).toMatchObject({ status: 'red', refuted: true });
    });
  });
});
