import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, ADMIN_TOKEN, call, dialects, expectCode, startPbs, type Harness } from '../support/harness.js';
import { addOperator, OPERATOR_PASSWORD, signInOperator, totpCode } from '../support/team.js';

/** Issue 44: accounts, their second factor, sessions and personal tokens, on both databases. */
describe.each(dialects)('operator accounts on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  const who = async (auth: { token?: string; cookie?: string }) =>
    call(h.url, 'GET', '/admin/v1/session', auth.token ? { token: auth.token } : { headers: { cookie: auth.cookie! } });

  it('sets an invited person up through a single-use link: Argon2id password, a sealed TOTP secret', async () => {
    const ada = await addOperator(h, 'Ada@Ops.example.com'.toLowerCase(), 'support');
    const row = await h.database.db.selectFrom('operator_accounts').selectAll().where('id', '=', ada.id).executeTakeFirstOrThrow();
    // Argon2id with OWASP's minimum: 19 MiB, 2 passes, 1 lane.
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(OPERATOR_PASSWORD);
    // The TOTP secret is sealed (AES-GCM under a key derived from pbs's secret), not kept as it was shown.
    expect(row.totp_secret).toMatch(/^v1\./);
    expect(row.totp_secret).not.toContain(ada.totpSecret);
    expect(row.setup_token_hash).toBeNull();
    const me = await who({ cookie: ada.cookie });
    expect(me.body.operator).toEqual({ name: 'ada@ops.example.com', role: 'support', via: 'session', account_id: ada.id });
    expect(Date.parse(me.body.expires_at) - h.wall.ms).toBe(12 * 3_600_000);
    const listed = (await admin(h.url, 'GET', '/admin/v1/operators')).body.operators.find((a: { id: string }) => a.id === ada.id);
    expect(listed).toMatchObject({ state: 'active', role: 'support', sign_in: { password: true, totp: true, sso: false } });
    expect(JSON.stringify(listed)).not.toMatch(/argon|v1\./);
  });

  it('refuses a used, replaced or expired setup link, a short password and a wrong code', async () => {
    const invited = (await admin(h.url, 'POST', '/admin/v1/operators', { json: { email: 'bo@ops.example.com', role: 'viewer' } })).body;
    expectCode(
      await admin(h.url, 'POST', '/admin/v1/operators', { json: { email: 'BO@ops.example.com', role: 'viewer' } }),
      409,
      'CONFLICT',
    );
    expectCode(
      await admin(h.url, 'POST', '/admin/v1/operators', { json: { email: 'not-an-address', role: 'viewer' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectCode(
      await admin(h.url, 'POST', '/admin/v1/operators', { json: { email: 'x@ops.example.com', role: 'owner' } }),
      400,
      'VALIDATION_ERROR',
    );
    const token: string = invited.setup_token;
    expect(invited.setup_url).toContain(`/console/#/setup/${token}`);
    const secret: string = (await call(h.url, 'POST', '/operator/setup/begin', { json: { setup_token: token } })).body.totp_secret;
    const finish = (password: string, code: string) =>
      call(h.url, 'POST', '/operator/setup/finish', { json: { setup_token: token, password, totp_code: code } });
    expectCode(await finish('short', totpCode(h, secret)), 400, 'VALIDATION_ERROR');
    expectCode(await finish(OPERATOR_PASSWORD, '000000'), 400, 'VALIDATION_ERROR');
    // A new link replaces the old one.
    const again = (await admin(h.url, 'POST', `/admin/v1/operators/${invited.account.id}/setup-link`)).body;
    expectCode(await finish(OPERATOR_PASSWORD, totpCode(h, secret)), 401, 'TOKEN_INVALID');
    // A link lives a week.
    h.wall.tick(7 * 86_400_000 + 1);
    expectCode(await call(h.url, 'POST', '/operator/setup/begin', { json: { setup_token: again.setup_token } }), 401, 'TOKEN_INVALID');
  });

  it('signs in with password and a fresh code only: a code is taken once, a wrong one is refused alike', async () => {
    const cy = await addOperator(h, 'cy@ops.example.com', 'viewer');
    const signIn = (password: string, code: string, email = cy.email) =>
      call(h.url, 'POST', '/operator/sign-in', { json: { email, password, totp_code: code } });
    h.wall.tick(30_000);
    const code = totpCode(h, cy.totpSecret);
    expect((await signIn(OPERATOR_PASSWORD, code)).status).toBe(200);
    // The same code again (a replay) is refused, as a wrong password, a wrong code or an unknown person are, with one answer.
    for (const r of [
      await signIn(OPERATOR_PASSWORD, code),
      await signIn('wrong password here', totpCode(h, cy.totpSecret, 1)),
      await signIn(OPERATOR_PASSWORD, '123456'),
      await signIn(OPERATOR_PASSWORD, totpCode(h, cy.totpSecret, 1), 'nobody@ops.example.com'),
    ]) {
      expectCode(r, 401, 'TOKEN_INVALID');
      expect(r.body.error.description).toBe('Wrong e-mail, password or code.');
    }
    h.wall.tick(30_000);
    const cookie = await signInOperator(h, cy.email, cy.totpSecret);
    expect(cookie).toMatch(/^pbs_operator=ops_[A-Za-z0-9]{43}$/);
    // Signing out ends the session in the database, not only in the browser.
    expect((await call(h.url, 'DELETE', '/admin/v1/session', { headers: { cookie, origin: h.url } })).status).toBe(204);
    expectCode(await who({ cookie }), 401, 'TOKEN_INVALID');
    // A session ends after its lifetime (wall time).
    h.wall.tick(30_000);
    const later = await signInOperator(h, cy.email, cy.totpSecret);
    h.wall.tick(12 * 3_600_000);
    expectCode(await who({ cookie: later }), 401, 'TOKEN_INVALID');
  });

  it('gives personal tokens a role no higher than the owner’s, an expiry and a last-used time; revokes them', async () => {
    const dee = await addOperator(h, 'dee@ops.example.com', 'partner_manager');
    const issue = (json: unknown, auth = dee.token) => call(h.url, 'POST', '/admin/v1/me/tokens', { token: auth, json });
    expectCode(await issue({ name: 'too much', role: 'admin' }), 403, 'AUTHORIZATION_ERROR');
    expectCode(await issue({ name: 'too long', expires_in_days: 366 }), 400, 'VALIDATION_ERROR');
    // The bootstrap token has no account to own one.
    expectCode(await issue({ name: 'bootstrap' }, ADMIN_TOKEN), 409, 'CONFLICT');
    const small = (await issue({ name: 'reader', role: 'viewer', expires_in_days: 1 })).body;
    expect(small.token).toMatch(/^pbs_op_[A-Za-z0-9]{40}$/);
    expect((await who({ token: small.token })).body.operator).toMatchObject({ role: 'viewer', via: 'token', account_id: dee.id });
    expectCode(await call(h.url, 'POST', '/admin/v1/partners', { token: small.token, json: { name: 'x' } }), 403, 'AUTHORIZATION_ERROR');
    const listed = (await call(h.url, 'GET', '/admin/v1/me/tokens', { token: dee.token })).body.tokens;
    const row = listed.find((t: { id: string }) => t.id === small.id);
    expect(row.last_used_at).toBe(new Date(h.wall.ms).toISOString());
    expect(JSON.stringify(listed)).not.toContain(small.token);
    // It expires.
    h.wall.tick(86_400_000);
    expectCode(await who({ token: small.token }), 401, 'TOKEN_INVALID');
    // Revoked by its owner, it stops at once; another person's token is not theirs to revoke, an admin's it is.
    const other = (await issue({ name: 'script' })).body;
    const eve = await addOperator(h, 'eve@ops.example.com', 'support');
    expectCode(await call(h.url, 'DELETE', `/admin/v1/operator-tokens/${other.id}`, { token: eve.token }), 404, 'NOT_FOUND');
    expect((await call(h.url, 'DELETE', `/admin/v1/operator-tokens/${other.id}`, { token: dee.token })).body.revoked_at).not.toBeNull();
    expectCode(await who({ token: other.token }), 401, 'TOKEN_INVALID');
    // An account holds a bounded number of live tokens.
    const live = (await call(h.url, 'GET', '/admin/v1/me/tokens', { token: dee.token })).body.tokens.filter(
      (t: { revoked_at: string | null; expires_at: string }) => t.revoked_at === null && Date.parse(t.expires_at) > h.wall.ms,
    ).length;
    for (let i = live; i < 50; i++) expect((await issue({ name: `bulk ${i}` })).status).toBe(201);
    expectCode(await issue({ name: 'one too many' }), 409, 'CONFLICT');
    // A lowered owner lowers their tokens at once.
    expect((await admin(h.url, 'PATCH', `/admin/v1/operators/${dee.id}`, { json: { role: 'viewer' } })).body.role).toBe('viewer');
    expect((await who({ token: dee.token })).body.operator.role).toBe('viewer');
  });

  it('ends a disabled account’s sessions and revokes its tokens; nobody disables themselves', async () => {
    const fay = await addOperator(h, 'fay@ops.example.com', 'admin');
    const gus = await addOperator(h, 'gus@ops.example.com', 'support');
    expectCode(
      await call(h.url, 'PATCH', `/admin/v1/operators/${fay.id}`, { token: fay.token, json: { disabled: true } }),
      409,
      'CONFLICT',
    );
    const disabled = await call(h.url, 'PATCH', `/admin/v1/operators/${gus.id}`, { token: fay.token, json: { disabled: true } });
    expect(disabled.body.state).toBe('disabled');
    expectCode(await who({ cookie: gus.cookie }), 401, 'TOKEN_INVALID');
    expectCode(await who({ token: gus.token }), 401, 'TOKEN_INVALID');
    const tokens = (await admin(h.url, 'GET', `/admin/v1/operators/${gus.id}/tokens`)).body.tokens;
    expect(tokens.every((t: { revoked_at: string | null }) => t.revoked_at !== null)).toBe(true);
    // Nor can they sign in; enabled again, they can (their tokens stay revoked).
    h.wall.tick(30_000);
    expectCode(
      await call(h.url, 'POST', '/operator/sign-in', {
        json: { email: gus.email, password: OPERATOR_PASSWORD, totp_code: totpCode(h, gus.totpSecret) },
      }),
      401,
      'TOKEN_INVALID',
    );
    await call(h.url, 'PATCH', `/admin/v1/operators/${gus.id}`, { token: fay.token, json: { disabled: false } });
    h.wall.tick(30_000);
    await signInOperator(h, gus.email, gus.totpSecret);
    expectCode(await who({ token: gus.token }), 401, 'TOKEN_INVALID');
  });

  it('turns the bootstrap token off only once an admin account can sign in; `pbs admin-token reset` brings it back', async () => {
    // A stored (generated) bootstrap token, as a server without PBS_ADMIN_TOKEN has.
    const fresh = await startPbs(dialect, { env: { PBS_ADMIN_TOKEN: '' } });
    try {
      const bootstrap = fresh.pbs.generatedAdminToken!;
      const off = () => call(fresh.url, 'DELETE', '/admin/v1/bootstrap-token', { token: bootstrap });
      expectCode(await off(), 409, 'CONFLICT');
      // An invited admin who has not finished the setup does not count.
      await call(fresh.url, 'POST', '/admin/v1/operators', { token: bootstrap, json: { email: 'late@ops.example.com', role: 'admin' } });
      expectCode(await off(), 409, 'CONFLICT');
      const invited = await call(fresh.url, 'POST', '/admin/v1/operators', {
        token: bootstrap,
        json: { email: 'boss@ops.example.com', role: 'admin' },
      });
      const setupToken: string = invited.body.setup_token;
      const secret: string = (await call(fresh.url, 'POST', '/operator/setup/begin', { json: { setup_token: setupToken } })).body
        .totp_secret;
      await call(fresh.url, 'POST', '/operator/setup/finish', {
        json: { setup_token: setupToken, password: OPERATOR_PASSWORD, totp_code: totpCode(fresh, secret) },
      });
      expect((await off()).status).toBe(204);
      expectCode(await call(fresh.url, 'GET', '/admin/v1/partners', { token: bootstrap }), 401, 'TOKEN_INVALID');
      // The admin account still gets in, and sees the switch off.
      fresh.wall.tick(30_000);
      const cookie = await signInOperator(fresh, 'boss@ops.example.com', secret);
      expect((await call(fresh.url, 'GET', '/admin/v1/bootstrap-token', { headers: { cookie } })).body).toEqual({ enabled: false });
      // A shell on the server makes a new one (the way back when every admin is locked out).
      const { resetAdminToken } = await import('../../src/app.js');
      const renewed = await resetAdminToken(fresh.database);
      expect((await call(fresh.url, 'GET', '/admin/v1/partners', { token: renewed })).status).toBe(200);
      // PBS_ADMIN_TOKEN in the environment is changed there: the API does not turn it off.
      expectCode(await admin(h.url, 'DELETE', '/admin/v1/bootstrap-token'), 409, 'CONFLICT');
    } finally {
      await fresh.close();
    }
    const none = await startPbs(dialect, { env: { PBS_ADMIN_TOKEN: 'off' } });
    try {
      expectCode(await call(none.url, 'GET', '/admin/v1/partners', { token: 'off' }), 401, 'TOKEN_INVALID');
      expect((await call(none.url, 'GET', '/admin/v1/partners', { token: ADMIN_TOKEN })).status).toBe(401);
    } finally {
      await none.close();
    }
  });
});
