import { toIsoOffset, type Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { sha256Hex } from '../platform/ids.js';
import type { OauthClient } from './authorization-service.js';
import { GrantStore } from './grant-store.js';
import { OwnerStore } from './owner-store.js';

/** Most authorizations the operator's view of a business user lists (the newest). */
const LISTED_GRANTS = 100;

/**
 * Ending business users' authorizations (docs/owners.md "Revoking"): the partner's app revokes a
 * token it holds (RFC 7009), the operator lists and revokes a business user's. `onRevoked` tells
 * the credential cache, so this process refuses the tokens at once.
 */
export class AuthorizationRevocation {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly onRevoked: () => void,
  ) {}

  private grants() {
    return new GrantStore(this.database.db, this.database.dialect);
  }

  /**
   * `POST /oauth2/revoke` for a business user's token: an access token ends alone, a refresh token
   * ends its whole authorization. A token that is unknown, already ended or another client's
   * changes nothing and is no error (RFC 7009 §2.2).
   */
  async revokeToken(client: OauthClient, token: string | undefined): Promise<void> {
    if (!token) throw apiError('INVALID_REQUEST', 'token is required', { field: 'token' });
    const now = this.clock.now();
    await this.database.transact(async (trx) => {
      const store = new GrantStore(trx, this.database.dialect);
      const row = await store.tokenByHash(sha256Hex(token));
      const grant = row && (await store.lockGrant(row.grant_id));
      if (!row || !grant || grant.credential_id !== client.credentialId) return;
      if (row.kind === 'access') return store.revokeToken(row.id, now);
      await store.updateGrant(grant.id, { revoked_at: grant.revoked_at ?? now });
      await store.revokeTokens(grant.id, undefined, now);
    });
    this.onRevoked();
  }

  /** A business user's authorizations of partners, newest first, for the operator. */
  async authorizationsOf(userId: string) {
    if (!(await new OwnerStore(this.database.db).user(userId))) throw apiError('NOT_FOUND', `Business user ${userId} not found`);
    const grants = await this.grants().grantsOfUser(userId, LISTED_GRANTS);
    return {
      authorizations: grants.map((g) => ({
        id: g.id,
        partner_id: g.partner_id,
        scopes: g.scope.split(' '),
        authorized_at: toIsoOffset(Number(g.created_at)),
        revoked_at: g.revoked_at === null ? null : toIsoOffset(Number(g.revoked_at)),
      })),
    };
  }

  /** Ends every authorization a business user gave (and every token of them); how many were live. */
  async revokeAllOf(userId: string) {
    if (!(await new OwnerStore(this.database.db).user(userId))) throw apiError('NOT_FOUND', `Business user ${userId} not found`);
    const revoked = await this.database.transact((trx) =>
      new GrantStore(trx, this.database.dialect).revokeGrantsOfUser(userId, this.clock.now()),
    );
    this.onRevoked();
    return { revoked };
  }
}
