import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, expectCode, startPbs, type Harness } from '../support/harness.js';
import { createRestaurant } from '../support/restaurant.js';
import { addOperator } from '../support/team.js';
import { eventuallyPasses } from '../support/wait.js';
import { auditScopesOpen } from '../../src/platform/audit/audit-trail.js';

/** Issue 44 "audit trail": what a record holds, the search, the export, and what nothing may do to it. */
describe.each(dialects)('the audit trail on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  const trail = async (query: string) => (await admin(h.url, 'GET', `/admin/v1/audit?${query}`)).body;

  it('keeps before → after of settings, the target, the partner and the business', async () => {
    const p = await createPartner(h.url, ['waitlist'], 'Audited Limits');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/waitlist`, { json: { per_second: 7 } });
    const limits = (await trail(`partner_id=${p.partner.id}&action=interfaces`)).records[0];
    expect(limits).toMatchObject({
      action: 'PUT /admin/v1/partners/:partner_id/interfaces/:interface',
      actor: { via: 'bootstrap', name: 'bootstrap token', account_id: null },
      target: { kind: 'interface', id: 'waitlist' },
      partner_id: p.partner.id,
      details: {
        before: { enabled: true, per_second: null, per_day: null },
        after: { enabled: true, per_second: 7, per_day: null },
        recorded: 'with the change',
      },
    });
    expect(limits.address).toBe('127.0.0.1');
    const restaurant = (await createRestaurant(h.url, {}, 'Audited Line')).id;
    await admin(h.url, 'PUT', `/admin/v1/businesses/${restaurant}/waitlist`, { json: { max_party_size: 6 } });
    const line = (await trail(`business_id=${restaurant}&action=waitlist`)).records[0];
    expect(line.details.after.max_party_size).toBe(6);
    expect(line.details.before.max_party_size).not.toBe(6);
    // A credential issued: recorded with its id, never its secret.
    const issued = (await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/credentials`, { json: { kind: 'api_key' } })).body;
    const record = (await trail(`partner_id=${p.partner.id}&action=credentials`)).records[0];
    expect(record.target).toEqual({ kind: 'credential', id: issued.id });
    expect(JSON.stringify(record)).not.toContain(issued.api_key);
    // Answered: no operator change is in flight, so the audit context's hook on every promise is off.
    await eventuallyPasses(() => expect(auditScopesOpen()).toBe(0));
  });

  it('records nothing for a change refused, and nothing for a read', async () => {
    const before = (await trail('limit=1')).records[0].id;
    expectCode(await admin(h.url, 'POST', '/admin/v1/partners/AAAAAAAAAAAAAAAAAAAAAA/disable'), 404, 'NOT_FOUND');
    expectCode(
      await admin(h.url, 'PUT', '/admin/v1/partners/AAAAAAAAAAAAAAAAAAAAAA/interfaces/waitlist', { json: { per_second: 1 } }),
      404,
      'NOT_FOUND',
    );
    expectCode(await admin(h.url, 'DELETE', '/admin/v1/partners/AAAAAAAAAAAAAAAAAAAAAA/webhook'), 404, 'NOT_FOUND');
    await admin(h.url, 'GET', '/admin/v1/partners');
    expect((await trail('limit=1')).records[0].id).toBe(before);
  });

  it('searches by person, action and time, pages newest first, and exports oldest first', async () => {
    const ann = await addOperator(h, 'ann@ops.example.com', 'partner_manager');
    for (let i = 0; i < 3; i++) await call(h.url, 'POST', '/admin/v1/partners', { token: ann.token, json: { name: `Ann's ${i}` } });
    const first = await trail(`actor=ann@&action=POST /admin/v1/partners&limit=2`);
    expect(first.records).toHaveLength(2);
    expect(first.records.every((r: { actor: { account_id: string } }) => r.actor.account_id === ann.id)).toBe(true);
    const second = await trail(`actor=${ann.id}&action=POST /admin/v1/partners&limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(second.records).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect(Date.parse(first.records[0].at)).toBeGreaterThanOrEqual(Date.parse(second.records[0].at));
    expect((await trail(`since=${new Date(h.wall.ms + 1).toISOString()}`)).records).toEqual([]);
    expectCode(await admin(h.url, 'GET', '/admin/v1/audit?since=yesterday'), 400, 'VALIDATION_ERROR');
    expectCode(await admin(h.url, 'GET', '/admin/v1/audit?cursor=nope'), 400, 'VALIDATION_ERROR');
    const exported = await admin(h.url, 'GET', `/admin/v1/audit/export?actor=${ann.id}`);
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = exported.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => r.action)).toEqual([
      'SIGN-IN password',
      'POST /admin/v1/me/tokens',
      'POST /admin/v1/partners',
      'POST /admin/v1/partners',
      'POST /admin/v1/partners',
    ]);
    // The export is an admin's; the search anyone's.
    expectCode(await call(h.url, 'GET', '/admin/v1/audit/export', { token: ann.token }), 403, 'AUTHORIZATION_ERROR');
  });

  it('offers no way to change or remove a record, and lets records past the retention go', async () => {
    const doc = (await call(h.url, 'GET', '/openapi.json')).body;
    const auditPaths = Object.entries(doc.paths as Record<string, Record<string, unknown>>).filter(([path]) =>
      path.startsWith('/admin/v1/audit'),
    );
    expect(auditPaths.flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`)).sort()).toEqual([
      'get /admin/v1/audit',
      'get /admin/v1/audit/export',
    ]);
    for (const method of ['PUT', 'PATCH', 'DELETE']) expect((await admin(h.url, method, '/admin/v1/audit')).status).toBe(405);
    const count = async () =>
      Number(
        (
          await h.database.db
            .selectFrom('operator_audit')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const kept = await count();
    expect(kept).toBeGreaterThan(0);
    h.wall.tick(399 * 86_400_000);
    expect(await h.pbs.services.audit.purge()).toBe(0);
    h.wall.tick(2 * 86_400_000);
    expect(await h.pbs.services.audit.purge()).toBe(kept);
  });
});
