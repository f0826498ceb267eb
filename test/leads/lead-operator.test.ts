import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cursorSeq, draftProject, eventCursor, requestSummary } from '../../src/leads/lead-rules.js';
import { emailDomainOf } from '../../src/leads/lead-views.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/** The absent optional fields of a lead or an event: left out, never null (real clients' schemas refuse null). */
const nullsIn = (value: unknown, path = ''): string[] =>
  value === null
    ? [path]
    : typeof value === 'object'
      ? Object.entries(value as object).flatMap(([k, v]) => (k === 'question_identifier' ? [] : nullsIn(v, `${path}.${k}`)))
      : [];

describe.each(dialects)('leads behind lead webhooks on %s', (dialect) => {
  let h: Harness;
  let businessId: string;
  let otherBusinessId: string;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '3000' } });
    businessId = (
      await admin(h.url, 'POST', '/admin/v1/businesses', {
        json: sampleBusiness({ name: 'Bay Plumbing', categories: [{ alias: 'plumbing', title: 'Plumbing' }] }),
      })
    ).body.id;
    otherBusinessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Other' }) })).body.id;
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  /** A partner subscribed to the business's webhooks at a fresh receiver. */
  const subscribedPartner = async () => {
    const p = await createPartner(h.url, ['business_subscriptions', 'webhooks'], `Leads ${receivers.length}`);
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    receivers.push(receiver);
    const url = await receiver.start();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: `leads-${receivers.length}` } });
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`);
    const added = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: p.apiKey.api_key,
      json: { business_ids: [businessId] },
    });
    expect(added.status).toBe(200);
    return { ...p, receiver };
  };
  /** A `pbs` command group run in the server's process, as the CLI runs it. */
  const cli = (group: string, args: string[], flags: Record<string, string>) => {
    const run = h.pbs.commands.get(group);
    if (!run) throw new Error(`no command group ${group}`);
    return run(args, flags);
  };
  const updatesOf = (receiver: Receiver) => receiver.posts().flatMap((post) => JSON.parse(post.body).data.updates);

  it('a new lead webhook leads to a lead: its request, and the first message whose id is the webhook event_id', async () => {
    const p = await subscribedPartner();
    const emitted = await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: {} });
    expect(emitted.status).toBe(201);
    expect(emitted.body).toMatchObject({ event_id: expect.any(String), message_id: `msg_${emitted.body.event_id}` });
    await h.pbs.deliverWebhooks();
    const [update] = updatesOf(p.receiver);
    expect(update).toEqual({
      event_type: 'NEW_EVENT',
      event_id: emitted.body.lead_event_id,
      lead_id: emitted.body.lead_id,
      interaction_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
    });

    const view = await admin(h.url, 'GET', `/admin/v1/leads/${update.lead_id}`);
    expect(view.status).toBe(200);
    const { lead, events } = view.body;
    expect(lead).toMatchObject({
      id: update.lead_id,
      business_id: businessId,
      conversation_id: expect.any(String),
      time_created: update.interaction_time,
      last_event_time: update.interaction_time,
      user: { display_name: expect.stringMatching(/^[A-Z][a-z]+ [A-Z]\.$/) },
      project: {
        job_names: [expect.any(String)],
        survey_answers: expect.arrayContaining([
          { question_text: expect.any(String), question_identifier: expect.anything(), answer_text: [expect.any(String)] },
        ]),
        location: { postal_code: '94103' },
        availability: { status: 'SPECIFIC_DATES', dates: [expect.any(String), expect.any(String)] },
        additional_info: expect.any(String),
      },
      temporary_email_address: expect.stringMatching(/^[A-Za-z0-9]{22}@messaging\./),
      link_to_reply_in_yelp: expect.stringContaining(`/leads_center/${businessId}/leads/${update.lead_id}`),
    });
    // The plumber gets a plumbing request; no phone until the consumer opts in; nothing null.
    expect(['Water heater repair', 'Leak detection and repair', 'Drain cleaning', 'Toilet installation']).toContain(
      lead.project.job_names[0],
    );
    expect(lead).not.toHaveProperty('phone_number');
    expect(nullsIn(lead)).toEqual([]);
    expect(events).toEqual([
      {
        id: update.event_id,
        cursor: expect.any(String),
        time_created: update.interaction_time,
        event_type: 'TEXT',
        user_type: 'CONSUMER',
        user_id: expect.any(String),
        user_display_name: lead.user.display_name,
        event_content: { text: expect.stringMatching(/^Hi there/), fallback_text: expect.stringMatching(/^Hi there/) },
        // The operator's view only: the webhook message that announced it.
        message_id: emitted.body.message_id,
      },
    ]);
    expect(events[0].cursor).not.toBe(events[0].id);
    expect(events[0].event_content.text).toContain(lead.project.additional_info);
  });

  it("a consumer's later message is an event of the same lead, with its own webhook", async () => {
    const p = await subscribedPartner();
    const started = (await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: 'lead-talk' } }))
      .body;
    expect(started.lead_id).toBe('lead-talk');
    const said = await admin(h.url, 'POST', '/admin/v1/leads/lead-talk/messages', { json: { text: 'Can you come on Thursday?' } });
    expect(said.status).toBe(201);
    const again = await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: 'lead-talk' } });
    expect(again.status).toBe(201);
    await h.pbs.deliverWebhooks();
    // Deliveries may arrive in any order (receivers de-duplicate and order by reading the events).
    const announced = updatesOf(p.receiver).map((u: { event_id: string; lead_id: string }) => [u.lead_id, u.event_id]);
    expect(announced).toHaveLength(3);
    expect(announced).toEqual(
      expect.arrayContaining([
        ['lead-talk', started.lead_event_id],
        ['lead-talk', said.body.lead_event_id],
        ['lead-talk', again.body.lead_event_id],
      ]),
    );
    const { events, lead } = (await admin(h.url, 'GET', '/admin/v1/leads/lead-talk')).body;
    expect(events.map((e: { id: string }) => e.id)).toEqual([started.lead_event_id, said.body.lead_event_id, again.body.lead_event_id]);
    expect(events[1].event_content).toEqual({ text: 'Can you come on Thursday?', fallback_text: 'Can you come on Thursday?' });
    expect(events[2].event_content.text).toEqual(expect.any(String));
    expect(new Set(events.map((e: { cursor: string }) => e.cursor)).size).toBe(3);
    expect(lead.last_event_time >= lead.time_created).toBe(true);
    const listed = await admin(h.url, 'GET', `/admin/v1/businesses/${businessId}/leads`);
    expect(listed.body.leads.map((l: { id: string }) => l.id)).toContain('lead-talk');
  });

  it('a phone opt-in shows the number on the lead, an opt-out takes it away, each with its webhook', async () => {
    const p = await subscribedPartner();
    await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: 'lead-phone' } });
    const optIn = await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, {
      json: { lead_id: 'lead-phone', event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT', phone_number: '+14155550123' },
    });
    expect(optIn.status).toBe(201);
    expect(optIn.body).not.toHaveProperty('lead_event_id');
    const withPhone = (await admin(h.url, 'GET', '/admin/v1/leads/lead-phone')).body.lead;
    expect(withPhone).toMatchObject({
      phone_number: '+14155550123',
      temporary_phone_number: '+14155550123',
      temporary_phone_number_expiry: '2099-12-31T00:00:00+00:00',
    });
    await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, {
      json: { lead_id: 'lead-phone', event_type: 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT' },
    });
    expect((await admin(h.url, 'GET', '/admin/v1/leads/lead-phone')).body.lead).not.toHaveProperty('phone_number');
    await h.pbs.deliverWebhooks();
    const updates = updatesOf(p.receiver);
    expect(updates).toHaveLength(3);
    expect(updates).toEqual(
      expect.arrayContaining([
        { event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT', lead_id: 'lead-phone' },
        { event_type: 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT', lead_id: 'lead-phone' },
      ]),
    );
  });

  it('refuses what names no lead of the business, and writes nothing for it', async () => {
    await admin(h.url, 'POST', `/admin/v1/businesses/${businessId}/events/leads`, { json: { lead_id: 'lead-mine' } });
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', `/admin/v1/businesses/${otherBusinessId}/events/leads`, { lead_id: 'lead-mine' }, 400, 'VALIDATION_ERROR'],
      [
        'POST',
        `/admin/v1/businesses/${businessId}/events/leads`,
        { event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT' },
        400,
        'VALIDATION_ERROR',
      ],
      [
        'POST',
        `/admin/v1/businesses/${businessId}/events/leads`,
        { lead_id: 'no-such-lead', event_type: 'CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT' },
        404,
        'NOT_FOUND',
      ],
      ['POST', `/admin/v1/businesses/${businessId}/events/leads`, { lead_id: 'lead-mine', event_type: 'BOGUS' }, 400, 'VALIDATION_ERROR'],
      [
        'POST',
        `/admin/v1/businesses/${businessId}/events/leads`,
        { lead_id: 'lead-mine', event_type: 'CONSUMER_PHONE_NUMBER_OPT_IN_EVENT', text: 'hi' },
        400,
        'VALIDATION_ERROR',
      ],
      ['POST', `/admin/v1/businesses/${businessId}/events/leads`, { lead_id: 'bad id/with slash' }, 400, 'VALIDATION_ERROR'],
      ['POST', `/admin/v1/businesses/${businessId}/events/leads`, { text: 'x'.repeat(5001) }, 400, 'VALIDATION_ERROR'],
      ['POST', '/admin/v1/businesses/no-such-business/events/leads', {}, 404, 'BUSINESS_NOT_FOUND'],
      ['GET', '/admin/v1/leads/no-such-lead', undefined, 404, 'NOT_FOUND'],
      ['POST', '/admin/v1/leads/no-such-lead/messages', {}, 404, 'NOT_FOUND'],
      ['GET', '/admin/v1/businesses/no-such-business/leads', undefined, 404, 'BUSINESS_NOT_FOUND'],
    ];
    for (const [method, path, json, status, code] of cases) {
      const r = await admin(h.url, method, path, json === undefined ? {} : { json });
      expect([path, json, r.status, r.body.error?.code]).toEqual([path, json, status, code]);
    }
    const { events } = (await admin(h.url, 'GET', '/admin/v1/leads/lead-mine')).body;
    expect(events).toHaveLength(1);
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/${otherBusinessId}/leads`)).body.leads).toEqual([]);
  });

  it('pbs lead and pbs event lead drive the same conversations from the command line', async () => {
    const started = (await cli('event', ['lead', businessId], { 'lead-id': 'lead-cli', text: 'The boiler in the basement.' })) as {
      lead_id: string;
    };
    expect(started.lead_id).toBe('lead-cli');
    // A new lead's text is the request's additional details, and so ends its first message.
    const first = (await admin(h.url, 'GET', '/admin/v1/leads/lead-cli')).body;
    expect(first.lead.project.additional_info).toBe('The boiler in the basement.');
    expect(first.events[0].event_content.text).toMatch(/Additional details: The boiler in the basement\.$/);
    await cli('lead', ['say', 'lead-cli'], { text: 'From the command line' });
    await cli('lead', ['opt-in', 'lead-cli'], { phone: '+14155550199' });
    const shown = (await cli('lead', ['show', 'lead-cli'], {})) as {
      lead: { phone_number: string };
      events: Array<{ event_content: { text: string } }>;
    };
    expect(shown.lead.phone_number).toBe('+14155550199');
    expect(shown.events.map((e) => e.event_content.text)[1]).toBe('From the command line');
  });
});

describe('lead rules', () => {
  it('a cursor is opaque, belongs to its lead, and reads back as its place', () => {
    const cursor = eventCursor('Ld1', 7);
    expect(cursor).not.toContain('Ld1');
    expect(cursorSeq('Ld1', cursor)).toBe(7);
    expect(cursorSeq('Ld2', cursor)).toBeUndefined();
    expect(cursorSeq('Ld1', 'not a cursor!')).toBeUndefined();
    expect(cursorSeq('Ld1', eventCursor('Ld1', 0))).toBeUndefined();
  });

  it("a project fits the business's kind, and its summary carries every answer", () => {
    let n = 0;
    const random = () => (n++ % 10) / 10;
    const project = draftProject({ categories: ['movers'], postalCode: '10001' }, '2031-03-04', random);
    expect(['Local moving', 'In-state moving', 'Packing services']).toContain(project.job_names[0]);
    expect(project.availability).toEqual({ status: 'SPECIFIC_DATES', dates: ['2031-03-06', '2031-03-07'] });
    const summary = requestSummary(project);
    for (const answer of project.survey_answers) expect(summary).toContain(answer.answer_text[0]);
    expect(draftProject({ categories: [], postalCode: '' }, '2031-03-04', random)).not.toHaveProperty('location');
  });

  it('masked e-mail addresses use the public host when it is a name', () => {
    expect(emailDomainOf('https://pbs.example.org')).toBe('messaging.pbs.example.org');
    expect(emailDomainOf('http://127.0.0.1:3000')).toBe('messaging.example.com');
    expect(emailDomainOf('http://localhost:3000')).toBe('messaging.example.com');
  });
});
