import { Secret } from 'otpauth';
import { seal, totpOf, totpStep, unseal } from './totp.js';
import { accountView, iso, roleOf, tokenView, type AccountView, type TokenView } from './team-views.js';
import type { Database } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId, randomBase62, sha256Hex } from '../platform/ids.js';
import { hashPassword, PASSWORD_LENGTH, passwordMatches } from '../platform/passwords.js';
import { noteAudit, writeAudit } from '../platform/audit/audit-trail.js';
import {
  lowerRole,
  OPERATOR_TOKEN_PREFIX,
  roleAtLeast,
  type Operator,
  type OperatorRole,
  type OperatorVerifier,
} from '../platform/auth/operator.js';
import { teamStore, type AccountRow } from './team-store.js';

export interface TeamOptions {
  publicUrl: string;
  /** How long an invitation's setup link lives. */
  setupMs: number;
  /** How long a console session lives (wall time). */
  sessionMs: number;
  /** Sealing key of TOTP secrets (derived from PBS_SECRET_KEY). */
  totpKey: () => Promise<Buffer>;
  wallNow: () => number;
}

/** Personal tokens live at most a year (the default 90 days), and an account holds at most 50 live at once. */
export const TOKEN_DAYS = { default: 90, max: 365, maxLive: 50 };
const DAY_MS = 86_400_000;
/** A last-used time is written at most this often per token (a script may call many times a second). */
const TOUCH_EVERY_MS = 60_000;
const SESSION_PREFIX = 'ops_';

/**
 * Operator accounts, their personal tokens and console sessions (docs/security.md "Operators and
 * roles"). An admin invites a person with a role; the invitation's single-use link lets them set a
 * password and a TOTP second factor (or they sign in through SSO, sso.ts). Disabling an account
 * ends its sessions and revokes its tokens in the same transaction.
 */
export class Team implements OperatorVerifier {
  constructor(
    private readonly database: Database,
    private readonly options: TeamOptions,
  ) {}

  private get db() {
    return this.database.db;
  }

  async list(): Promise<AccountView[]> {
    return (await teamStore.accounts(this.db)).map(accountView);
  }

  async get(id: string): Promise<AccountRow> {
    const row = await teamStore.account(this.db, id);
    if (!row) throw apiError('NOT_FOUND', 'No operator account with this id.');
    return row;
  }

  /** A new account with a single-use setup link (shown once). */
  async invite(input: {
    email: string;
    name?: string;
    role: OperatorRole;
  }): Promise<{ account: AccountView; setup_url: string; setup_token: string }> {
    const email = normalisedEmail(input.email);
    const setupToken = `pbs_setup_${randomBase62(32)}`;
    const now = this.options.wallNow();
    const row = {
      id: newId(),
      email,
      name: input.name?.trim() || email,
      role: input.role,
      password_hash: null,
      totp_secret: null,
      totp_last_step: null,
      sso_subject: null,
      setup_token_hash: sha256Hex(setupToken),
      setup_expires_at: now + this.options.setupMs,
      created_at: now,
      disabled_at: null,
      last_sign_in_at: null,
    };
    try {
      await this.database.transact(async (trx) => {
        noteAudit({ target: { kind: 'account', id: row.id }, after: { email, role: row.role } });
        await teamStore.insertAccount(trx, row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw apiError('CONFLICT', `An operator account with the e-mail ${email} exists.`);
      throw error;
    }
    return { account: accountView(row), setup_token: setupToken, setup_url: this.setupUrl(setupToken) };
  }

  private setupUrl(token: string): string {
    return new URL(`/console/#/setup/${encodeURIComponent(token)}`, this.options.publicUrl).toString();
  }

  /** Changes an account's name or role, or disables / enables it; a disabled account's sessions and tokens end with it. */
  async change(id: string, change: { name?: string; role?: OperatorRole; disabled?: boolean }, by: Operator): Promise<AccountView> {
    return this.database.transact(async (trx) => {
      const row = await teamStore.account(trx, id);
      if (!row) throw apiError('NOT_FOUND', 'No operator account with this id.');
      if (by.accountId === id && (change.disabled === true || (change.role && change.role !== row.role)))
        throw apiError('CONFLICT', 'You cannot disable yourself or change your own role; ask another admin.');
      const now = this.options.wallNow();
      const next = {
        name: change.name?.trim() || row.name,
        role: change.role ?? roleOf(row.role),
        disabled_at: change.disabled === undefined ? row.disabled_at : change.disabled ? (row.disabled_at ?? now) : null,
      };
      noteAudit({
        target: { kind: 'account', id },
        before: { name: row.name, role: row.role, disabled: row.disabled_at !== null },
        after: { name: next.name, role: next.role, disabled: next.disabled_at !== null },
      });
      await teamStore.updateAccount(trx, id, next);
      if (next.disabled_at !== null && row.disabled_at === null) {
        await teamStore.deleteSessionsOf(trx, id);
        await teamStore.revokeTokensOf(trx, id, now);
      }
      return accountView({ ...row, ...next });
    });
  }

  /** A new setup link (a lost phone or password): the old password, second factor and sessions stop working. */
  async resetSetup(id: string): Promise<{ setup_url: string; setup_token: string }> {
    const setupToken = `pbs_setup_${randomBase62(32)}`;
    await this.database.transact(async (trx) => {
      const row = await teamStore.account(trx, id);
      if (!row) throw apiError('NOT_FOUND', 'No operator account with this id.');
      noteAudit({ target: { kind: 'account', id } });
      await teamStore.updateAccount(trx, id, {
        password_hash: null,
        totp_secret: null,
        totp_last_step: null,
        setup_token_hash: sha256Hex(setupToken),
        setup_expires_at: this.options.wallNow() + this.options.setupMs,
      });
      await teamStore.deleteSessionsOf(trx, id);
    });
    return { setup_token: setupToken, setup_url: this.setupUrl(setupToken) };
  }

  private async setupAccount(setupToken: string): Promise<AccountRow> {
    const row = await teamStore.accountBySetupToken(this.db, sha256Hex(setupToken));
    if (!row || row.disabled_at !== null || (row.setup_expires_at ?? 0) <= this.options.wallNow())
      throw apiError('TOKEN_INVALID', 'This setup link is not valid (used, expired or replaced); ask an admin for a new one.');
    return row;
  }

  /** The first step of a setup link: the TOTP secret to scan (made now, kept sealed until the setup ends). */
  async beginSetup(setupToken: string): Promise<{ email: string; totp_secret: string; totp_uri: string }> {
    const row = await this.setupAccount(setupToken);
    const secret = new Secret({ size: 20 });
    await teamStore.updateAccount(this.db, row.id, { totp_secret: await seal(this.options.totpKey, secret.base32) });
    return { email: row.email, totp_secret: secret.base32, totp_uri: totpOf(row.email, secret.base32).toString() };
  }

  /** The last step: a password and a code of the new second factor; the link is used up. */
  async finishSetup(setupToken: string, password: string, code: string): Promise<AccountView> {
    const row = await this.setupAccount(setupToken);
    if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max)
      throw apiError('VALIDATION_ERROR', `A password has ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`, {
        field: 'password',
      });
    if (!row.totp_secret) throw apiError('CONFLICT', 'Open the setup link first: it shows the code to scan.');
    const step = totpStep(totpOf(row.email, await unseal(this.options.totpKey, row.totp_secret)), code, this.options.wallNow(), null);
    if (step === undefined)
      throw apiError('VALIDATION_ERROR', 'The code is not the one your authenticator shows now.', { field: 'totp_code' });
    const change = { password_hash: await hashPassword(password), totp_last_step: step, setup_token_hash: null, setup_expires_at: null };
    await this.database.transact(async (trx) => teamStore.updateAccount(trx, row.id, change));
    return accountView({ ...row, ...change });
  }

  /** Signs a person in with e-mail, password and TOTP code: a console session (its cookie value, once). */
  async signIn(
    email: string,
    password: string,
    code: string,
    address: string,
  ): Promise<{ operator: Operator; value: string; expiresAt: number }> {
    const row = await teamStore.accountByEmail(this.db, normalisedEmail(email));
    const usable = row && row.disabled_at === null && row.setup_token_hash === null ? row : undefined;
    const sealedSecret = usable?.totp_secret;
    // The hash is checked whether or not the account exists: the answer takes as long either way.
    const passwordOk = await passwordMatches(usable?.password_hash, password);
    if (!usable || !sealedSecret || !passwordOk) throw apiError('TOKEN_INVALID', 'Wrong e-mail, password or code.');
    const step = totpStep(
      totpOf(usable.email, await unseal(this.options.totpKey, sealedSecret)),
      code,
      this.options.wallNow(),
      usable.totp_last_step,
    );
    if (step === undefined) throw apiError('TOKEN_INVALID', 'Wrong e-mail, password or code.');
    await this.database.transact(async (trx) => teamStore.updateAccount(trx, usable.id, { totp_last_step: step }));
    return this.startSession(usable, 'password', address);
  }

  /** A console session for an account that proved who it is (a password and code, or the identity provider). */
  async startSession(
    row: AccountRow,
    method: 'password' | 'sso',
    address: string,
  ): Promise<{ operator: Operator; value: string; expiresAt: number }> {
    const value = `${SESSION_PREFIX}${randomBase62(43)}`;
    const now = this.options.wallNow();
    const expiresAt = now + this.options.sessionMs;
    const operator = this.operatorOf(row.id, row.email, roleOf(row.role), 'session', null, expiresAt);
    await this.database.transact(async (trx) => {
      await teamStore.insertSession(trx, { id: sha256Hex(value), account_id: row.id, created_at: now, expires_at: expiresAt, method });
      await teamStore.updateAccount(trx, row.id, { last_sign_in_at: now });
      // A sign-in is in the trail too (its route is public: no operator guard opened a draft).
      await writeAudit(
        trx,
        {
          at: now,
          operator,
          address,
          action: `SIGN-IN ${method}`,
          target: { kind: 'account', id: row.id },
          details: {},
          written: true,
        },
        'with the change',
      );
    });
    return { operator, value, expiresAt };
  }

  async endSession(value: string): Promise<void> {
    if (value.startsWith(SESSION_PREFIX)) await this.database.transact((trx) => teamStore.deleteSession(trx, sha256Hex(value)));
  }

  isAccountSession(value: string): boolean {
    return value.startsWith(SESSION_PREFIX);
  }

  async verifySession(value: string): Promise<Operator | undefined> {
    if (!/^ops_[A-Za-z0-9]{43}$/.test(value)) return undefined;
    const row = await teamStore.sessionByHash(this.db, sha256Hex(value));
    if (!row || row.disabled_at !== null || Number(row.expires_at) <= this.options.wallNow()) return undefined;
    return this.operatorOf(row.account_id, row.email, roleOf(row.role), 'session', null, Number(row.expires_at));
  }

  async verifyToken(token: string): Promise<Operator | undefined> {
    if (!token.startsWith(OPERATOR_TOKEN_PREFIX) || token.length > 100) return undefined;
    const row = await teamStore.tokenByHash(this.db, sha256Hex(token));
    const now = this.options.wallNow();
    if (!row || row.revoked_at !== null || row.disabled_at !== null || Number(row.expires_at) <= now) return undefined;
    if (row.last_used_at === null || now - Number(row.last_used_at) > TOUCH_EVERY_MS) await teamStore.touchToken(this.db, row.id, now);
    // A token never holds more than its owner holds now (a lowered role lowers its tokens at once).
    const role = lowerRole(roleOf(row.role), roleOf(row.account_role));
    return this.operatorOf(row.account_id, row.email, role, 'token', row.id);
  }

  private operatorOf(
    accountId: string,
    email: string,
    role: OperatorRole,
    via: 'session' | 'token',
    tokenId: string | null,
    sessionEnds?: number,
  ): Operator {
    return { via, accountId, tokenId, name: email, role, sessionEnds };
  }

  async tokens(accountId?: string): Promise<TokenView[]> {
    return (await teamStore.tokens(this.db, accountId)).map(tokenView);
  }

  /** A personal token of the signed-in account (shown once), with a role no higher than its owner's. */
  async issueToken(
    owner: Operator,
    input: { name: string; role?: OperatorRole; expires_in_days?: number },
  ): Promise<TokenView & { token: string }> {
    if (!owner.accountId)
      throw apiError('CONFLICT', 'The bootstrap token has no account to own a personal token; sign in with an operator account.');
    const role = input.role ?? owner.role;
    if (!roleAtLeast(owner.role, role)) throw apiError('AUTHORIZATION_ERROR', `A token cannot hold more than your role (${owner.role}).`);
    const days = input.expires_in_days ?? TOKEN_DAYS.default;
    const token = `${OPERATOR_TOKEN_PREFIX}${randomBase62(40)}`;
    const now = this.options.wallNow();
    const row = {
      id: newId(),
      account_id: owner.accountId,
      name: input.name.trim(),
      role,
      token_hash: sha256Hex(token),
      created_at: now,
      expires_at: now + days * DAY_MS,
      last_used_at: null,
      revoked_at: null,
    };
    await this.database.transact(async (trx) => {
      if ((await teamStore.countLiveTokens(trx, row.account_id, now)) >= TOKEN_DAYS.maxLive)
        throw apiError('CONFLICT', `An account holds at most ${TOKEN_DAYS.maxLive} live tokens: revoke one it no longer needs.`);
      noteAudit({ target: { kind: 'token', id: row.id }, after: { name: row.name, role, expires_at: iso(row.expires_at) } });
      await teamStore.insertToken(trx, row);
    });
    return { ...tokenView(row), token };
  }

  /** Revokes a token: its owner's own, or anyone's by an admin. */
  async revokeToken(id: string, by: Operator): Promise<TokenView> {
    return this.database.transact(async (trx) => {
      const row = await teamStore.token(trx, id);
      if (!row || (row.account_id !== by.accountId && by.role !== 'admin')) throw apiError('NOT_FOUND', 'No such token of yours.');
      noteAudit({ target: { kind: 'token', id } });
      const now = this.options.wallNow();
      await teamStore.revokeToken(trx, id, now);
      return tokenView({ ...row, revoked_at: row.revoked_at ?? now });
    });
  }

  /** Whether an enabled admin account can sign in (the bootstrap token may then be turned off). */
  async hasUsableAdmin(): Promise<boolean> {
    return (await teamStore.countUsableAdmins(this.db)) > 0;
  }

  async purgeEnded(): Promise<void> {
    await teamStore.purgeEnded(this.db, this.options.wallNow());
  }
}

export function normalisedEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed) || trimmed.length > 254)
    throw apiError('VALIDATION_ERROR', 'Not an e-mail address.', { field: 'email' });
  return trimmed;
}
