import * as oidc from 'openid-client';
import type { Database } from '../platform/db/database.js';
import type { OidcConfig } from '../platform/config.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { isOperatorRole, operatorRoles, roleAtLeast, type OperatorRole } from '../platform/auth/operator.js';
import { isRecord } from '../platform/values.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import { seal, unseal } from './totp.js';
import { teamStore, type AccountRow } from './team-store.js';
import type { Team } from './team-service.js';

/** The cookie that carries a sign-in's state, nonce and PKCE verifier to the callback (sealed). */
export const SSO_COOKIE = 'pbs_sso';
/** How long a person may take at the identity provider. */
const SSO_ATTEMPT_MS = 10 * 60_000;

/**
 * Operator single sign-on (docs/security.md "Single sign-on"): the authorization code flow with
 * PKCE, state and nonce, through `openid-client` (a certified relying party). The role comes from
 * the configured group claim when a group maps to one, which then also updates it at each
 * sign-in; otherwise the person must have been invited (by e-mail) and keeps the role given in pbs.
 */
export class OperatorSso {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    private readonly config: OidcConfig,
    private readonly database: Database,
    private readonly team: Team,
    private readonly options: { publicUrl: string; key: () => Promise<Buffer>; wallNow: () => number },
  ) {}

  get name(): string {
    return this.config.name;
  }

  private get redirectUri(): string {
    return `${this.options.publicUrl}/operator/sso/callback`;
  }

  private discover(): Promise<oidc.Configuration> {
    const plainHttp = new URL(this.config.issuer).protocol === 'http:';
    this.configuration ??= oidc
      .discovery(
        new URL(this.config.issuer),
        this.config.clientId,
        this.config.clientSecret,
        undefined,
        plainHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        // Tried again at the next sign-in: the provider may be back.
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }

  /** Where to send the browser, and the sealed cookie the callback needs. */
  async start(): Promise<{ url: string; cookieValue: string }> {
    const configuration = await this.discover();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: `openid email profile ${this.config.roleClaim}`,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const attempt = JSON.stringify({ verifier, state, nonce, until: this.options.wallNow() + SSO_ATTEMPT_MS });
    return { url: url.href, cookieValue: await seal(this.options.key, attempt) };
  }

  /** The provider's answer: the person's account (made or updated from the group claim), signed in. */
  async finish(query: string, cookieValue: string | undefined, address: string) {
    const attempt = cookieValue ? await this.attemptOf(cookieValue) : undefined;
    if (!attempt) throw apiError('TOKEN_INVALID', 'This sign-in was not started here, or took longer than 10 minutes: start again.');
    const configuration = await this.discover();
    const tokens = await oidc.authorizationCodeGrant(configuration, new URL(`${this.redirectUri}${query}`), {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw apiError('TOKEN_INVALID', 'The identity provider sent no ID token.');
    // The userinfo endpoint holds what providers leave out of the ID token (often the groups).
    const info = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
    const claims: Record<string, unknown> = { ...info, ...idClaims };
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
    const account = await this.accountFor(
      `${idClaims.iss}|${idClaims.sub}`,
      email,
      typeof claims.name === 'string' ? claims.name : undefined,
      this.roleOf(claims[this.config.roleClaim]),
    );
    return this.team.startSession(account, 'sso', address);
  }

  private async attemptOf(value: string): Promise<{ verifier: string; state: string; nonce: string } | undefined> {
    try {
      const parsed: unknown = JSON.parse(await unseal(this.options.key, value));
      if (!isRecord(parsed) || typeof parsed.until !== 'number' || parsed.until < this.options.wallNow()) return undefined;
      const { verifier, state, nonce } = parsed;
      return typeof verifier === 'string' && typeof state === 'string' && typeof nonce === 'string'
        ? { verifier, state, nonce }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** The highest role the person's groups map to, if any does. */
  private roleOf(groups: unknown): OperatorRole | undefined {
    const list = Array.isArray(groups) ? groups : typeof groups === 'string' ? groups.split(/[\s,]+/) : [];
    let best: OperatorRole | undefined;
    for (const group of list) {
      const role = typeof group === 'string' ? this.config.roleMap[group] : undefined;
      if (isOperatorRole(role) && (!best || roleAtLeast(role, best))) best = role;
    }
    return best;
  }

  /**
   * The account of a person the provider vouched for: by subject, else by the e-mail of an
   * invitation, else made when a group maps to a role.
   */
  private async accountFor(
    subject: string,
    email: string | undefined,
    name: string | undefined,
    mapped: OperatorRole | undefined,
  ): Promise<AccountRow> {
    return this.database.transact(async (trx) => {
      const existing = (await teamStore.accountBySubject(trx, subject)) ?? (email ? await teamStore.accountByEmail(trx, email) : undefined);
      const now = this.options.wallNow();
      if (existing) {
        if (existing.disabled_at !== null) throw apiError('AUTHORIZATION_ERROR', 'This operator account is disabled.');
        if (existing.sso_subject !== null && existing.sso_subject !== subject)
          throw apiError('AUTHORIZATION_ERROR', 'This e-mail belongs to an account of another identity.');
        const role = mapped ?? existing.role;
        if (role !== existing.role)
          noteAudit({ target: { kind: 'account', id: existing.id }, before: { role: existing.role }, after: { role } });
        await teamStore.updateAccount(trx, existing.id, { sso_subject: subject, role });
        return { ...existing, sso_subject: subject, role };
      }
      if (!mapped || !email)
        throw apiError(
          'AUTHORIZATION_ERROR',
          `You are not an operator of this pbs: ask an admin to invite your e-mail, or to map one of your groups to a role (${operatorRoles.join(', ')}).`,
        );
      const row = {
        id: newId(),
        email,
        name: name ?? email,
        role: mapped,
        password_hash: null,
        totp_secret: null,
        totp_last_step: null,
        sso_subject: subject,
        setup_token_hash: null,
        setup_expires_at: null,
        created_at: now,
        disabled_at: null,
        last_sign_in_at: null,
      };
      await teamStore.insertAccount(trx, row);
      return row;
    });
  }
}
