import { toIso } from '../platform/clock.js';
import type { Database, DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { PORTAL_COOKIE, type PortalSession, type PortalSessionVerifier } from '../platform/http/portal-session.js';
import { randomBase62, sha256Hex } from '../platform/ids.js';
import { PortalStore } from './portal-store.js';

/** A portal link lasts 15 minutes and signs in once (docs/request-log.md "Portal"). */
export const PORTAL_LINK_MS = 15 * 60_000;

/** What the portal needs of the partners family. */
export interface PortalPartners {
  /** The partner's name and the interfaces enabled for it; throws NOT_FOUND for an unknown partner. */
  describe(partnerId: string): Promise<{ name: string; interfaces: string[] }>;
  /**
   * Whether the partner is active (a disabled partner has no portal), and a stamp of its
   * credentials that any rotation or revocation changes; undefined for an unknown partner.
   */
  standing(partnerId: string): Promise<{ active: boolean; credentialsStamp: string } | undefined>;
  /** The partner whose API key this is, when it is a live one (sandbox sign-in). */
  partnerOfApiKey(token: string): Promise<string | undefined>;
}

/**
 * The partner portal's access: single-use links the operator issues, exchanged for sessions held
 * in an HttpOnly cookie; in the sandbox a partner may also sign in with its API key. Tokens are
 * random (190 bits) and only their hashes are stored. Links and sessions live on wall time, not
 * the sandbox clock; a session ends when the partner is disabled or any of its credentials is
 * rotated or revoked (docs/security.md).
 */
export class Portal implements PortalSessionVerifier {
  private readonly now: () => number;

  constructor(
    private readonly database: Database,
    private readonly partners: PortalPartners,
    private readonly options: { publicUrl: string; sessionMs: number; sandbox: boolean; wallClock?: () => number },
  ) {
    this.now = options.wallClock ?? Date.now;
  }

  private store(db: DbOrTx = this.database.db) {
    return new PortalStore(db);
  }

  /** A sign-in link for the partner: single use, 15 minutes. */
  async issueLink(partnerId: string) {
    await this.activeStanding(partnerId);
    const token = randomBase62(32);
    const now = this.now();
    const link = { token_hash: sha256Hex(token), partner_id: partnerId, created_at: now, expires_at: now + PORTAL_LINK_MS, used_at: null };
    await this.database.transact((trx) => this.store(trx).insertLink(link));
    return { url: `${this.options.publicUrl}/portal/sign-in?token=${token}`, expires_at: toIso(now + PORTAL_LINK_MS) };
  }

  /** Exchanges a link's token for a session (the link is used up). */
  async exchange(token: string) {
    const partnerId = await this.store().useLink(sha256Hex(token), this.now());
    if (!partnerId) throw apiError('TOKEN_INVALID', 'This portal link is used, expired or unknown; ask the operator for a new one.');
    return this.startSession(partnerId, await this.activeStanding(partnerId));
  }

  /** Sandbox only: a session from the partner's own API key. */
  async signInWithApiKey(token: string) {
    if (!this.options.sandbox)
      throw apiError('NOT_FOUND', 'Portal sign-in with an API key is for the sandbox; ask the operator for a portal link.');
    const partnerId = await this.partners.partnerOfApiKey(token);
    if (!partnerId) throw apiError('TOKEN_INVALID', 'This API key is unknown or revoked.');
    return this.startSession(partnerId, await this.activeStanding(partnerId));
  }

  async verify(token: string): Promise<PortalSession | undefined> {
    const session = await this.store().liveSession(sha256Hex(token), this.now());
    if (!session) return undefined;
    const standing = await this.partners.standing(session.partner_id);
    if (!standing?.active || session.credentials_stamp !== standing.credentialsStamp) return undefined;
    return { partnerId: session.partner_id, sessionId: session.id };
  }

  async me(session: PortalSession) {
    const row = await this.store().liveSession(session.sessionId, this.now());
    const partner = await this.partners.describe(session.partnerId);
    return {
      partner_id: session.partnerId,
      partner_name: partner.name,
      interfaces: partner.interfaces,
      session_expires_at: row ? toIso(Number(row.expires_at)) : null,
    };
  }

  /**
   * Keeps `session` going after its own partner rotated or revoked a credential in the portal: it
   * takes the new stamp, so the partner's other sessions end and this one does not.
   */
  async keepSession(session: PortalSession): Promise<void> {
    const standing = await this.activeStanding(session.partnerId);
    await this.store().restampSession(session.sessionId, standing.credentialsStamp);
  }

  signOut(session: PortalSession) {
    return this.store().revokeSession(session.sessionId, this.now());
  }

  async revokeAll(partnerId: string) {
    await this.partners.describe(partnerId);
    return { revoked: await this.database.transact((trx) => this.store(trx).revokeSessionsOf(partnerId, this.now())) };
  }

  purgeEnded() {
    return this.store().purgeEnded(this.now());
  }

  /** The partner's standing, which must be active: a disabled partner has no portal (403), an unknown one 404. */
  private async activeStanding(partnerId: string) {
    const standing = await this.partners.standing(partnerId);
    if (!standing) throw apiError('NOT_FOUND', `Partner not found: ${partnerId}`);
    if (!standing.active)
      throw apiError(
        'AUTHORIZATION_ERROR',
        'This partner is disabled, and a disabled partner has no portal; ask the operator to enable it.',
      );
    return standing;
  }

  /** The cookie of a session: HttpOnly, SameSite=Strict, Path=/portal, Secure behind HTTPS. */
  cookieFor(token: string, secure: boolean): string {
    const seconds = Math.floor(this.options.sessionMs / 1000);
    return `${PORTAL_COOKIE}=${token}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${seconds}${secure ? '; Secure' : ''}`;
  }

  private async startSession(partnerId: string, standing: { credentialsStamp: string }) {
    const token = randomBase62(32);
    const now = this.now();
    await this.store().insertSession({
      id: sha256Hex(token),
      partner_id: partnerId,
      created_at: now,
      expires_at: now + this.options.sessionMs,
      revoked_at: null,
      credentials_stamp: standing.credentialsStamp,
    });
    return { token, partnerId };
  }
}

/** The cookie that ends a session in the browser. */
export const CLEARED_COOKIE = `${PORTAL_COOKIE}=; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=0`;
