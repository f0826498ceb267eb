import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerInterfaces } from '../../src/platform/auth/principal.js';
import { SettingsStore } from '../../src/platform/settings.js';
import { sha256Hex } from '../../src/platform/ids.js';
import {
  admin,
  ADMIN_TOKEN,
  call,
  createPartner,
  dialects,
  sampleBusiness,
  startPbs,
  type CallResult,
  type Harness,
  type TestPartner,
} from '../support/harness.js';
import { createRestaurant, hold, reserve, restaurantSettings } from '../support/restaurant.js';
import { addOperator, type TestOperator } from '../support/team.js';

/** One change of the walk: the operation as /openapi.json names it, what it is sent, what it leaves behind. */
interface Step {
  op: string;
  json?: unknown;
  ndjson?: unknown[];
  csv?: string;
  /** The operator account's token instead of the bootstrap token (an account's own tokens; the switch). */
  asAccount?: boolean;
  /** Ids of this step that are not the walk's usual ones. */
  with?: () => Record<string, string>;
  then?: (r: CallResult) => void | Promise<void>;
}

const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/**
 * Issue 44 "audit trail": every mutating operator operation of the served document, called so
 * that it succeeds, leaves exactly one record of its action, by the caller, with its target, and
 * no secret; the walk must name every such operation, so a new one fails here until it is walked.
 */
describe.each(dialects)('an audit record for every operator change on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let boss: TestOperator;
  let receiver: http.Server;
  let receiverUrl: string;
  const ids: Record<string, string> = {};
  const mutating: string[] = [];
  /** Secrets that went by during the walk: none may be in the trail. */
  const secrets: string[] = [];

  beforeAll(async () => {
    // A stored bootstrap token (not PBS_ADMIN_TOKEN), so the walk can turn it off at its end.
    h = await startPbs(dialect, { env: { PBS_AD_JOB_DELAY_MS: '2000', PBS_ADMIN_TOKEN: '' } });
    await new SettingsStore(h.database.db).set('admin_token_hash', sha256Hex(ADMIN_TOKEN));
    // A webhook receiver on loopback that answers verification and takes deliveries.
    receiver = http.createServer((request, response) => {
      const verification = new URL(request.url ?? '/', 'http://x').searchParams.get('verification');
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end(verification ? JSON.stringify({ verification }) : '{}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    p = await createPartner(h.url, [...partnerInterfaces], 'Audited');
    for (const name of partnerInterfaces)
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/${name}`, { json: { per_second: 100000 } });
    ids.partner_id = p.partner.id;
    ids.business_id = (await createRestaurant(h.url, {}, 'Audited Bistro')).id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${ids.partner_id}/businesses/${ids.business_id}`);
    const slot = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'audit-guest' };
    const held = await hold(h.url, p.apiKey.api_key, ids.business_id, slot);
    ids.reservation_id = (
      await reserve(h.url, p.apiKey.api_key, ids.business_id, { ...slot, hold_id: held.body.hold_id })
    ).body.reservation_id;
    boss = await addOperator(h, 'boss@ops.example.com', 'admin');
    const doc = (await call(h.url, 'GET', '/openapi.json')).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
      for (const method of Object.keys(item))
        if (path.startsWith('/admin/') && ['post', 'put', 'patch', 'delete'].includes(method))
          mutating.push(`${method.toUpperCase()} ${path}`);
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const at = (r: CallResult, field: string) => {
    const value = r.body?.[field];
    if (typeof value !== 'string') throw new Error(`no ${field} in ${r.text.slice(0, 200)}`);
    return value;
  };

  /** Every mutating operator operation, in an order that makes each succeed. */
  const steps = (): Step[] => [
    { op: 'POST /admin/v1/session' },
    { op: 'DELETE /admin/v1/session' },
    { op: 'PUT /admin/v1/clock', json: { frozen: true } },
    { op: 'POST /admin/v1/clock/advance', json: { seconds: 60 } },
    {
      op: 'POST /admin/v1/businesses',
      json: sampleBusiness({ name: 'Walked Cafe', alias: `walked-cafe-${dialect}` }),
      then: (r) => void (ids.cafe = at(r, 'id')),
    },
    {
      op: 'PUT /admin/v1/businesses/{business_id}',
      json: sampleBusiness({ name: 'Walked Cafe', alias: `walked-cafe-${dialect}` }),
      with: () => ({ business_id: ids.cafe }),
    },
    { op: 'POST /admin/v1/businesses/import', ndjson: [sampleBusiness({ name: 'Imported Cafe', alias: `imported-cafe-${dialect}` })] },
    { op: 'POST /admin/v1/partners', json: { name: 'Walked Partner' } },
    { op: 'POST /admin/v1/partners/{partner_id}/disable' },
    { op: 'POST /admin/v1/partners/{partner_id}/enable' },
    { op: 'PUT /admin/v1/partners/{partner_id}/interfaces/{interface}', json: { enabled: true, per_second: 100000 } },
    {
      op: 'POST /admin/v1/partners/{partner_id}/credentials',
      json: { kind: 'basic' },
      then: (r) => {
        ids.credential_id = at(r, 'id');
        secrets.push(JSON.stringify(r.body).match(/"(password|secret|api_key|client_secret)":"([^"]+)"/)?.[2] ?? 'none');
      },
    },
    {
      op: 'POST /admin/v1/credentials/{credential_id}/rotate',
      json: {},
      then: (r) => void secrets.push(r.body.password ?? r.body.secret ?? r.body.api_key ?? ''),
    },
    { op: 'DELETE /admin/v1/credentials/{credential_id}' },
    { op: 'DELETE /admin/v1/partners/{partner_id}/businesses/{business_id}' },
    { op: 'PUT /admin/v1/partners/{partner_id}/businesses/{business_id}' },
    { op: 'POST /admin/v1/partners/{partner_id}/businesses/import', csv: 'cafe' },
    { op: 'PUT /admin/v1/partners/{partner_id}/redirect-uris', json: { redirect_uris: ['https://partner.example.com/callback'] } },
    {
      op: 'PUT /admin/v1/partners/{partner_id}/webhook',
      json: { url: receiverUrl, client_id: 'walk' },
      then: (r) => void secrets.push(at(r, 'secret')),
    },
    { op: 'POST /admin/v1/partners/{partner_id}/webhook/verify' },
    { op: 'POST /admin/v1/partners/{partner_id}/webhook/rotate-secret', then: (r) => void secrets.push(at(r, 'secret')) },
    { op: 'PUT /admin/v1/partners/{partner_id}/webhook/duplicate-and-reorder', json: { on: false } },
    { op: 'PUT /admin/v1/businesses/{business_id}/reservation-settings', json: restaurantSettings },
    { op: 'POST /admin/v1/reservation-settings/import', ndjson: [{ business_id: ids.business_id, settings: restaurantSettings }] },
    { op: 'POST /admin/v1/reservations/{reservation_id}/cancel' },
    {
      op: 'PUT /admin/v1/businesses/{business_id}/waitlist',
      json: {
        hours: [
          {
            hours_type: 'REGULAR',
            open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359', is_overnight: false })),
          },
        ],
      },
    },
    { op: 'POST /admin/v1/businesses/{business_id}/waitlist/open' },
    {
      op: 'POST /admin/v1/businesses/{business_id}/waitlist/walk-ins',
      json: { party_size: 2 },
      then: (r) => void (ids.visit_id = at(r, 'visit_id')),
    },
    { op: 'POST /admin/v1/visits/{visit_id}/notify' },
    { op: 'POST /admin/v1/visits/{visit_id}/seat' },
    {
      op: 'POST /admin/v1/visits/{visit_id}/no-show',
      then: async () => {
        // The on-my-way party the next step checks in (the partner's side of the waitlist).
        const joined = await call(h.url, 'POST', `/v3/businesses/${ids.business_id}/waitlist/on-my-way`, {
          token: p.apiKey.api_key,
          json: { phone: '+14155550101', party_size: 2, name: 'Grace', arrival_range_min: 5, arrival_range_max: 15 },
        });
        ids.on_my_way = at(joined, 'visit_id');
      },
    },
    { op: 'POST /admin/v1/visits/{visit_id}/arrive' },
    { op: 'POST /admin/v1/businesses/{business_id}/waitlist/close', json: {} },
    { op: 'POST /admin/v1/businesses/{business_id}/events/leads', json: {}, then: (r) => void (ids.lead_id = at(r, 'lead_id')) },
    { op: 'POST /admin/v1/leads/{lead_id}/messages', json: { text: 'Are you free Thursday?' } },
    {
      op: 'POST /admin/v1/businesses/{business_id}/events/license-verifications',
      json: { license_verification_status: 'VERIFIED', license_number: 'L-1' },
    },
    { op: 'POST /admin/v1/businesses/{business_id}/events/ingestion-jobs', json: { job_id: 'walk-1', status: 'COMPLETED' } },
    {
      op: 'POST /admin/v1/businesses/{business_id}/reviews',
      json: { rating: 5, text: 'Lovely.', user: { name: 'A B' } },
      then: (r) => void (ids.review_id = at(r, 'id')),
    },
    { op: 'PATCH /admin/v1/reviews/{review_id}', json: { rating: 4 } },
    {
      op: 'PUT /admin/v1/reviews/{review_id}/public-response',
      json: { text: 'Thank you!', business_user: { name: 'Owner', role: 'owner' } },
    },
    { op: 'DELETE /admin/v1/reviews/{review_id}/public-response' },
    { op: 'DELETE /admin/v1/reviews/{review_id}' },
    {
      op: 'POST /admin/v1/reviews/import',
      ndjson: [
        {
          business_id: ids.business_id,
          id: `walked-review-${dialect}`,
          rating: 4,
          text: 'Two',
          user: { name: 'C D' },
          time_created: '2031-01-02T00:00:00Z',
        },
      ],
    },
    {
      op: 'POST /admin/v1/business-users',
      json: { name: 'Owner', email: `owner-${dialect}@owners.example.com`, business_ids: [ids.business_id] },
      then: (r) => void (ids.user_id = at(r, 'id')),
    },
    { op: 'PATCH /admin/v1/business-users/{user_id}', json: { name: 'Owner Renamed' } },
    { op: 'PUT /admin/v1/business-users/{user_id}/businesses/{business_id}' },
    {
      op: 'PUT /admin/v1/business-users/{user_id}/password',
      json: { password: 'owner password 1234' },
      then: () => void secrets.push('owner password 1234'),
    },
    { op: 'DELETE /admin/v1/business-users/{user_id}/password' },
    { op: 'DELETE /admin/v1/business-users/{user_id}/authorizations' },
    { op: 'DELETE /admin/v1/business-users/{user_id}/businesses/{business_id}' },
    { op: 'DELETE /admin/v1/business-users/{user_id}' },
    {
      op: 'POST /admin/v1/business-users/import',
      ndjson: [{ name: 'Imported Owner', email: `imp-${dialect}@owners.example.com`, business_ids: [ids.business_id] }],
    },
    { op: 'POST /admin/v1/engagement/activity', ndjson: [{ business_id: ids.business_id, week: '2031-04-28', page_views: 3 }] },
    { op: 'POST /admin/v1/engagement/weeks/{week}/score' },
    { op: 'PUT /admin/v1/advertising/settings', json: { hold_new_jobs: true } },
    { op: 'PUT /admin/v1/advertising/businesses/{business_id}/flags', json: { restricted_from_advertising: false } },
    { op: 'PUT /admin/v1/advertising/category-policy/{category}', json: {} },
    { op: 'DELETE /admin/v1/advertising/category-policy/{category}' },
    { op: 'PUT /admin/v1/advertising/promotions/{code}', json: { program_types: ['CPC'] } },
    {
      op: 'POST /admin/v1/advertising/jobs/{job_id}/hold',
      then: async () => void 0,
    },
    { op: 'POST /admin/v1/advertising/jobs/{job_id}/release' },
    {
      op: 'POST /admin/v1/advertising/jobs/{job_id}/complete',
      then: async () =>
        void (ids.program_id = (await admin(h.url, 'GET', '/admin/v1/advertising/programs')).body.programs?.[0]?.program_id ?? ''),
    },
    { op: 'POST /admin/v1/advertising/metrics', ndjson: [{ program_id: 'program', date: '2031-05-06', spend: 1 }] },
    {
      op: 'POST /admin/v1/partners/{partner_id}/portal-links',
      then: (r) =>
        void secrets.push(
          String(r.body?.url ?? '')
            .split('/')
            .pop() ?? '',
        ),
    },
    { op: 'DELETE /admin/v1/partners/{partner_id}/portal-sessions' },
    {
      op: 'POST /admin/v1/partners/{partner_id}/faults',
      json: { operation: 'POST /v3/bookings/{business_id}/holds', status: 503, count: 1 },
      then: (r) => void (ids.fault_id = at(r, 'id')),
    },
    { op: 'DELETE /admin/v1/faults/{fault_id}' },
    { op: 'POST /admin/v1/partners/{partner_id}/readiness/reset' },
    { op: 'PUT /admin/v1/partners/{partner_id}/launch-approval', json: { note: 'walked' } },
    { op: 'DELETE /admin/v1/partners/{partner_id}/launch-approval' },
    {
      op: 'POST /admin/v1/partners/{partner_id}/readiness/drills',
      json: { kind: 'rate_limit' },
      then: (r) => void (ids.drill_id = at(r, 'id')),
    },
    { op: 'POST /admin/v1/readiness/drills/{drill_id}/stop' },
    {
      op: 'POST /admin/v1/webhook-deliveries/{delivery_id}/redeliver',
      then: async () => void 0,
    },
    {
      op: 'POST /admin/v1/webhook-deliveries/redeliver-failed',
      json: { from: new Date(0).toISOString(), to: new Date(h.clock.now() + 1000).toISOString() },
    },
    { op: 'DELETE /admin/v1/partners/{partner_id}/webhook' },
    { op: 'POST /admin/v1/tasks/{task_id}/retry' },
    {
      op: 'POST /admin/v1/operators',
      json: { email: `walked-${dialect}@ops.example.com`, role: 'viewer' },
      then: (r) => void (ids.account_id = r.body.account.id),
    },
    { op: 'PATCH /admin/v1/operators/{account_id}', json: { role: 'support' } },
    { op: 'POST /admin/v1/operators/{account_id}/setup-link', then: (r) => void secrets.push(at(r, 'setup_token')) },
    {
      op: 'POST /admin/v1/me/tokens',
      json: { name: 'walk' },
      asAccount: true,
      then: (r) => {
        ids.token_id = at(r, 'id');
        secrets.push(at(r, 'token'));
      },
    },
    { op: 'DELETE /admin/v1/operator-tokens/{token_id}', asAccount: true },
    { op: 'DELETE /admin/v1/bootstrap-token', asAccount: true },
  ];

  it('walks every mutating operator operation; each success leaves one record, by its caller, with no secret', async () => {
    const walked = steps();
    expect(walked.map((s) => s.op).sort()).toEqual([...mutating].sort());
    for (const step of walked) {
      // Ids some steps need are made just before them.
      await prepare(step.op);
      const [method, template] = step.op.split(' ');
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const id = step.with?.()[name] ?? ids[name] ?? fixed[name];
        if (!id) throw new Error(`${step.op}: no ${name} yet`);
        return encodeURIComponent(id);
      });
      const before = (await admin(h.url, 'GET', '/admin/v1/audit?limit=1')).body.records[0]?.id;
      const auth = step.asAccount ? { token: boss.token } : {};
      // Bodies naming what the walk made: filled in now.
      const filled = (text: string) => text.replace(/"program"/g, JSON.stringify(ids.program_id)).replace(/^cafe$/, `${ids.cafe}\n`);
      const r = step.ndjson
        ? await admin(h.url, method, path, { ...auth, body: filled(ndjson(step.ndjson)), contentType: 'application/x-ndjson' })
        : step.csv
          ? await admin(h.url, method, path, { ...auth, body: filled(step.csv), contentType: 'text/csv' })
          : await admin(h.url, method, path, { ...auth, ...(step.json !== undefined ? { json: step.json } : {}) });
      expect(r.status, `${step.op}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
      await step.then?.(r);
      const records = (await admin(h.url, 'GET', '/admin/v1/audit?limit=5', { token: boss.token })).body.records;
      const fresh = records.slice(0, records.findIndex((x: { id: string }) => x.id === before) >>> 0);
      const action = `${method} ${template.replace(/\{([^}]+)\}/g, ':$1')}`;
      const mine = fresh.filter((x: { action: string }) => x.action === action);
      expect(mine.length, `${step.op}: records ${JSON.stringify(fresh).slice(0, 400)}`).toBe(1);
      expect(mine[0].actor.name).toBe(step.asAccount ? boss.email : 'bootstrap token');
      // In the change's own transaction, but for what changes nothing in the database (a bootstrap session's cookie).
      expect(mine[0].details.recorded, step.op).toBe(step.op.endsWith(' /admin/v1/session') ? 'after the change' : 'with the change');
    }
    const all = await admin(h.url, 'GET', '/admin/v1/audit/export', { token: boss.token });
    expect(all.status).toBe(200);
    const lines = all.text.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(walked.length);
    for (const secret of secrets.filter((s) => s.length >= 8)) expect(all.text, 'a secret in the audit trail').not.toContain(secret);
  });

  /** Ids that name something fixed, not made by the walk. */
  const fixed: Record<string, string> = { interface: 'reservations', category: 'tattoo', code: 'WALK10', week: '2031-04-28' };

  async function prepare(op: string) {
    if (op === 'POST /admin/v1/visits/{visit_id}/no-show') {
      ids.visit_id = at(
        await admin(h.url, 'POST', `/admin/v1/businesses/${ids.business_id}/waitlist/walk-ins`, { json: { party_size: 2 } }),
        'visit_id',
      );
    }
    if (op === 'POST /admin/v1/visits/{visit_id}/arrive') ids.visit_id = ids.on_my_way;
    if (op === 'POST /admin/v1/advertising/jobs/{job_id}/hold') {
      const created = await call(
        h.url,
        'POST',
        `/v1/reseller/program/create?${new URLSearchParams({ business_id: ids.business_id, program_name: 'EP' })}`,
        {
          basic: [p.basic.username, p.basic.password],
        },
      );
      ids.job_id = at(created, 'job_id');
    }
    if (op === 'POST /admin/v1/webhook-deliveries/{delivery_id}/redeliver') {
      // A delivered message: the partner subscribes to the business, and a lead event goes out.
      await call(h.url, 'POST', '/v3/businesses/subscriptions', {
        token: p.apiKey.api_key,
        json: { subscription_types: ['WEBHOOK'], business_ids: [ids.business_id] },
      });
      await h.pbs.ctx.tasks.runDue();
      await admin(h.url, 'POST', `/admin/v1/businesses/${ids.business_id}/events/leads`, { json: {} });
      await h.pbs.deliverWebhooks();
      const deliveries = (await admin(h.url, 'GET', `/admin/v1/webhook-deliveries?partner_id=${ids.partner_id}`)).body.deliveries;
      ids.delivery_id = deliveries.find((d: { status: string }) => d.status === 'delivered')?.id ?? '';
    }
    if (op === 'POST /admin/v1/tasks/{task_id}/retry') {
      const task = await h.database.db.selectFrom('tasks').select('id').limit(1).executeTakeFirst();
      if (!task) throw new Error('no task to retry');
      await h.database.db.updateTable('tasks').set({ state: 'dead' }).where('id', '=', task.id).execute();
      ids.task_id = task.id;
    }
  }
});
