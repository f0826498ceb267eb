import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { OperatorRole } from '../../src/platform/auth/operator.js';
import { admin, call, type Harness } from './harness.js';

/** The password every test operator sets (long enough for pbs's rule). */
export const OPERATOR_PASSWORD = 'correct horse battery staple';

/** A TOTP code of `secret` at the harness's wall time (pbs checks codes on its wall clock), `steps` periods on. */
export function totpCode(h: Harness, secret: string, steps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: h.wall.ms + steps * 30_000 });
}

export interface TestOperator {
  id: string;
  email: string;
  role: OperatorRole;
  totpSecret: string;
  /** The console session cookie (`pbs_operator=…`). */
  cookie: string;
  /** A personal token with the account's role. */
  token: string;
}

/** Invites an account (bootstrap token), sets it up through its link, signs it in and gives it a personal token. */
export async function addOperator(h: Harness, email: string, role: OperatorRole): Promise<TestOperator> {
  const invited = await admin(h.url, 'POST', '/admin/v1/operators', { json: { email, role } });
  expect(invited.status, invited.text).toBe(201);
  const setupToken: string = invited.body.setup_token;
  const begun = await call(h.url, 'POST', '/operator/setup/begin', { json: { setup_token: setupToken } });
  expect(begun.status, begun.text).toBe(200);
  const totpSecret: string = begun.body.totp_secret;
  const finished = await call(h.url, 'POST', '/operator/setup/finish', {
    json: { setup_token: setupToken, password: OPERATOR_PASSWORD, totp_code: totpCode(h, totpSecret) },
  });
  expect(finished.status, finished.text).toBe(200);
  // The setup spent this period's code: the sign-in takes the next one.
  h.wall.tick(30_000);
  const cookie = await signInOperator(h, email, totpSecret);
  const issued = await call(h.url, 'POST', '/admin/v1/me/tokens', { headers: { cookie, origin: h.url }, json: { name: 'tests' } });
  expect(issued.status, issued.text).toBe(201);
  return { id: invited.body.account.id, email, role, totpSecret, cookie, token: issued.body.token };
}

export async function signInOperator(h: Harness, email: string, totpSecret: string, password = OPERATOR_PASSWORD): Promise<string> {
  const r = await call(h.url, 'POST', '/operator/sign-in', { json: { email, password, totp_code: totpCode(h, totpSecret) } });
  expect(r.status, r.text).toBe(200);
  return r.headers.get('set-cookie')!.split(';')[0];
}
