import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRoles, roleAtLeast, type OperatorRole } from '../../src/platform/auth/operator.js';
import { admin, call, dialects, expectCode, startPbs, type Harness } from '../support/harness.js';
import { addOperator, type TestOperator } from '../support/team.js';

interface OperatorOperation {
  method: string;
  path: string;
  role: OperatorRole;
}

/** Paths filled with ids that name nothing: an allowed call answers 404 or 400, and changes nothing. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA');

/**
 * Issue 44 "accounts and roles": every `/admin/v1` operation of the served document declares the
 * least role it needs (`x-pbs-operator-role`), and each role's personal token, and each role's
 * console session, is refused (403) below it and let through at or above it.
 */
describe.each(dialects)('operator roles against every /admin/v1 operation on %s', (dialect) => {
  let h: Harness;
  const operators = new Map<OperatorRole, TestOperator>();
  let operations: OperatorOperation[];

  beforeAll(async () => {
    h = await startPbs(dialect);
    for (const role of operatorRoles) operators.set(role, await addOperator(h, `${role}@ops.example.com`, role));
    const doc = (await call(h.url, 'GET', '/openapi.json')).body;
    operations = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      if (!path.startsWith('/admin/')) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations.push({ method: method.toUpperCase(), path, role: op['x-pbs-operator-role'] as OperatorRole });
      }
    }
  });
  afterAll(() => h.close());

  it('finds every operator operation declaring a known role, changes above viewer', () => {
    expect(operations.length).toBeGreaterThan(100);
    for (const op of operations) expect(operatorRoles, `${op.method} ${op.path}`).toContain(op.role);
    // Viewers change nothing: every change but their own session and tokens needs more.
    const viewerChanges = operations.filter((o) => o.method !== 'GET' && o.role === 'viewer').map((o) => `${o.method} ${o.path}`);
    expect(viewerChanges.sort()).toEqual([
      'DELETE /admin/v1/operator-tokens/{token_id}',
      'DELETE /admin/v1/session',
      'POST /admin/v1/me/tokens',
      'POST /admin/v1/session',
    ]);
    const byRole = (role: OperatorRole) => operations.filter((o) => o.role === role).map((o) => `${o.method} ${o.path}`);
    expect(byRole('support')).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/webhook-deliveries/{delivery_id}/redeliver',
        'POST /admin/v1/reservations/{reservation_id}/cancel',
        'POST /admin/v1/partners/{partner_id}/portal-links',
      ]),
    );
    expect(byRole('partner_manager')).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/partners/{partner_id}/credentials',
        'PUT /admin/v1/partners/{partner_id}/interfaces/{interface}',
        'PUT /admin/v1/advertising/promotions/{code}',
      ]),
    );
    expect(byRole('admin')).toEqual(
      expect.arrayContaining(['POST /admin/v1/operators', 'PUT /admin/v1/clock', 'POST /admin/v1/businesses/import']),
    );
  });

  for (const credential of ['token', 'session'] as const) {
    it(`refuses each role's ${credential} below an operation's role with 403, and lets it through at or above`, async () => {
      for (const op of operations) {
        // Turning the bootstrap token off is tried in its own test.
        if (op.path === '/admin/v1/bootstrap-token' && op.method === 'DELETE') continue;
        for (const role of operatorRoles) {
          const who = operators.get(role)!;
          const auth = credential === 'token' ? { token: who.token } : { headers: { cookie: who.cookie, origin: h.url } };
          const what = `${op.method} ${op.path} as ${role} by ${credential}`;
          // Signing out would end the session the next calls use.
          if (op.path === '/admin/v1/session' && op.method === 'DELETE' && credential === 'session') continue;
          const r = await call(h.url, op.method, concrete(op.path), {
            ...auth,
            ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { json: {} }),
          });
          expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
          if (!roleAtLeast(role, op.role)) {
            expectCode(r, 403, 'AUTHORIZATION_ERROR');
            expect(r.body.error.description, what).toContain(`needs the ${op.role} role`);
          } else {
            expect(
              r.status === 403 && /needs the \w+ role/.test(r.body?.error?.description ?? ''),
              `${what}: ${r.text.slice(0, 200)}`,
            ).toBe(false);
            // POST /admin/v1/session starts a session from the bootstrap token only.
            if (!(op.path === '/admin/v1/session' && op.method === 'POST'))
              expect(r.status, `${what}: ${r.text.slice(0, 200)}`).not.toBe(401);
          }
        }
      }
    });
  }

  it('keeps the bootstrap token an admin, and shows no viewer or support person a secret', async () => {
    const partner = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Secretive' } })).body;
    const put = await admin(h.url, 'PUT', `/admin/v1/partners/${partner.id}/webhook`, {
      json: { url: 'http://127.0.0.1:9/hooks', client_id: 'c1' },
    });
    expect(put.status, put.text).toBe(200);
    const secret: string = put.body.secret;
    expect(secret).toMatch(/^whsec_/);
    for (const role of ['viewer', 'support'] as const) {
      const r = await call(h.url, 'GET', `/admin/v1/partners/${partner.id}/webhook`, { token: operators.get(role)!.token });
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(secret);
      expect(r.body.secret).toContain('hidden');
    }
    const manager = operators.get('partner_manager')!;
    const shown = await call(h.url, 'GET', `/admin/v1/partners/${partner.id}/webhook`, { token: manager.token });
    expect(shown.body.secret).toBe(secret);
    // Showing it is in the audit trail (what was shown, never the secret).
    const trail = await admin(h.url, 'GET', `/admin/v1/audit?actor=${manager.id}&action=GET`);
    expect(trail.body.records[0]).toMatchObject({
      action: 'GET /admin/v1/partners/:partner_id/webhook',
      partner_id: partner.id,
      details: { revealed: 'webhook signing secret' },
    });
    expect(trail.text).not.toContain(secret);
  });
});
