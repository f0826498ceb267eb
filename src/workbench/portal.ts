import { toIso, type Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { PORTAL_COOKIE, type PortalSession, type PortalSessionVerifier } from '../platform/http/portal-session.js';
import { randomBase62, sha256Hex } from '../platform/ids.js';
import { PortalStore } from './portal-store.js';

/** A portal link lasts 15 minutes and signs in once (docs/request-log.md "Portal"). */
export const PORTAL_LINK_MS = 15 * 60_000;

/** What the portal needs of the partners family. */
export interface PortalPartners {
  /** The partner's name; throws NOT_FOUND for an unknown partner. */
  nameOf(partnerId: string): Promise<string>;
  /** When any of its credentials was last rotated or revoked (pbs ms): sessions begun before it end. */
  credentialsChangedAt(partnerId: string): Promise<number>;
  /** The partner whose API key this is, when it is a live one (sandbox sign-in). */
  partnerOfApiKey(token: string): Promise<string | undefined>;
}

/**
 * The partner portal's access: single-use links the operator issues, exchanged for sessions held
 * in an HttpOnly cookie; in the sandbox a partner may also sign in with its API key. Tokens are
 * random (190 bits) and only their hashes are stored.
 */
export class Portal implements PortalSessionVerifier {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly partners: PortalPartners,
    private readonly options: { publicUrl: string; sessionMs: number; sandbox: boolean },
  ) {}

  private store() {
    return new PortalStore(this.database.db);
  }

  /** A sign-in link for the partner: single use, 15 minutes. */
  async issueLink(partnerId: string) {
    await this.partners.nameOf(partnerId);
    const token = randomBase62(32);
    const now = this.clock.now();
    await this.store().insertLink({
      token_hash: sha256Hex(token),
      partner_id: partnerId,
      created_at: now,
      expires_at: now + PORTAL_LINK_MS,
      used_at: null,
    });
    return { url: `${this.options.publicUrl}/portal/sign-in?token=${token}`, expires_at: toIso(now + PORTAL_LINK_MS) };
  }

  /** Exchanges a link's token for a session (the link is used up). */
  async exchange(token: string) {
    const partnerId = await this.store().useLink(sha256Hex(token), this.clock.now());
    if (!partnerId) throw apiError('TOKEN_INVALID', 'This portal link is used, expired or unknown; ask the operator for a new one.');
    return this.startSession(partnerId);
  }

  /** Sandbox only: a session from the partner's own API key. */
  async signInWithApiKey(token: string) {
    if (!this.options.sandbox)
      throw apiError('NOT_FOUND', 'Portal sign-in with an API key is for the sandbox; ask the operator for a portal link.');
    const partnerId = await this.partners.partnerOfApiKey(token);
    if (!partnerId) throw apiError('TOKEN_INVALID', 'This API key is unknown or revoked.');
    return this.startSession(partnerId);
  }

  async verify(token: string): Promise<PortalSession | undefined> {
    const now = this.clock.now();
    const session = await this.store().liveSession(sha256Hex(token), now);
    if (!session) return undefined;
    if (Number(session.created_at) < (await this.partners.credentialsChangedAt(session.partner_id))) return undefined;
    return { partnerId: session.partner_id, sessionId: session.id };
  }

  async me(session: PortalSession) {
    const row = await this.store().liveSession(session.sessionId, this.clock.now());
    return {
      partner_id: session.partnerId,
      partner_name: await this.partners.nameOf(session.partnerId),
      session_expires_at: row ? toIso(Number(row.expires_at)) : null,
    };
  }

  signOut(session: PortalSession) {
    return this.store().revokeSession(session.sessionId, this.clock.now());
  }

  async revokeAll(partnerId: string) {
    await this.partners.nameOf(partnerId);
    return { revoked: await this.store().revokeSessionsOf(partnerId, this.clock.now()) };
  }

  purgeEnded() {
    return this.store().purgeEnded(this.clock.now());
  }

  /** The cookie of a session: HttpOnly, SameSite=Strict, Path=/portal, Secure behind HTTPS. */
  cookieFor(token: string, secure: boolean): string {
    const seconds = Math.floor(this.options.sessionMs / 1000);
    return `${PORTAL_COOKIE}=${token}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${seconds}${secure ? '; Secure' : ''}`;
  }

  private async startSession(partnerId: string) {
    const token = randomBase62(32);
    const now = this.clock.now();
    await this.store().insertSession({
      id: sha256Hex(token),
      partner_id: partnerId,
      created_at: now,
      expires_at: now + this.options.sessionMs,
      revoked_at: null,
    });
    return { token, partnerId };
  }
}

/** The cookie that ends a session in the browser. */
export const CLEARED_COOKIE = `${PORTAL_COOKIE}=; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=0`;
