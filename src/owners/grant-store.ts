import type { Insertable, Selectable } from 'kysely';
import { forUpdateOn, type DbOrTx, type Dialect } from '../platform/db/database.js';
import type { BusinessUserGrantsTable, BusinessUserTokensTable } from './owner-tables.js';
import './owner-tables.js';

export type Grant = Selectable<BusinessUserGrantsTable>;
export type UserToken = Selectable<BusinessUserTokensTable>;

/** A live access token with what it stands for. */
export interface TokenReach {
  partner_id: string;
  credential_id: string;
  user_id: string;
  scope: string;
}

/** SQL of partners' redirect URIs and business users' grants and tokens. */
export class GrantStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  async redirectUris(partnerId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('oauth_redirect_uris').select('uri').where('partner_id', '=', partnerId).orderBy('uri').execute();
    return rows.map((r) => r.uri);
  }

  async replaceRedirectUris(partnerId: string, uris: string[], now: number): Promise<void> {
    await this.db.deleteFrom('oauth_redirect_uris').where('partner_id', '=', partnerId).execute();
    if (uris.length === 0) return;
    await this.db
      .insertInto('oauth_redirect_uris')
      .values(uris.map((uri) => ({ partner_id: partnerId, uri, created_at: now })))
      .execute();
  }

  async insertGrant(grant: Insertable<BusinessUserGrantsTable>): Promise<void> {
    await this.db.insertInto('business_user_grants').values(grant).execute();
  }

  /** The grant of a code, locked for the transaction on PostgreSQL: a code is redeemed once. */
  lockGrantByCode(codeHash: string): Promise<Grant | undefined> {
    return forUpdateOn(
      this.db.selectFrom('business_user_grants').selectAll().where('code_hash', '=', codeHash),
      this.dialect,
    ).executeTakeFirst();
  }

  lockGrant(id: string): Promise<Grant | undefined> {
    return forUpdateOn(this.db.selectFrom('business_user_grants').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  async updateGrant(id: string, change: Partial<Insertable<BusinessUserGrantsTable>>): Promise<void> {
    await this.db.updateTable('business_user_grants').set(change).where('id', '=', id).execute();
  }

  /** Ends every live grant of a business user (every token of theirs, and codes not yet redeemed); how many. */
  async revokeGrantsOfUser(userId: string, now: number): Promise<number> {
    const result = await this.db
      .updateTable('business_user_grants')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** A business user's redeemed grants, newest first, `limit` of them. */
  grantsOfUser(userId: string, limit: number): Promise<Grant[]> {
    return this.db
      .selectFrom('business_user_grants')
      .selectAll()
      .where('user_id', '=', userId)
      .where('code_used_at', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async insertToken(token: Insertable<BusinessUserTokensTable>): Promise<void> {
    await this.db.insertInto('business_user_tokens').values(token).execute();
  }

  tokenByHash(hash: string): Promise<UserToken | undefined> {
    return this.db.selectFrom('business_user_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  /** The grant's live refresh token (the newest), if any. */
  liveRefreshToken(grantId: string, now: number): Promise<UserToken | undefined> {
    return this.db
      .selectFrom('business_user_tokens')
      .selectAll()
      .where('grant_id', '=', grantId)
      .where('kind', '=', 'refresh')
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  async revokeTokens(grantId: string, kind: 'access' | 'refresh' | undefined, now: number): Promise<void> {
    let query = this.db
      .updateTable('business_user_tokens')
      .set({ revoked_at: now })
      .where('grant_id', '=', grantId)
      .where('revoked_at', 'is', null);
    if (kind) query = query.where('kind', '=', kind);
    await query.execute();
  }

  async revokeToken(id: string, now: number): Promise<void> {
    await this.db
      .updateTable('business_user_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** What a live access token of a live grant of an existing business user reaches; undefined otherwise. */
  liveAccess(hash: string, now: number): Promise<TokenReach | undefined> {
    return this.db
      .selectFrom('business_user_tokens as t')
      .innerJoin('business_user_grants as g', 'g.id', 't.grant_id')
      .innerJoin('business_users as u', 'u.id', 'g.user_id')
      .select(['g.partner_id', 'g.credential_id', 'g.user_id', 'g.scope'])
      .where('t.token_hash', '=', hash)
      .where('t.kind', '=', 'access')
      .where('t.revoked_at', 'is', null)
      .where('t.expires_at', '>', now)
      .where('g.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /**
   * Bounds a partner's grants from a business user before a new one: codes that expired
   * unredeemed are forgotten, revoked grants lose their tokens and only the newest `keepRevoked`
   * of them are kept (the operator's history); answers how many are live.
   */
  async pruneGrants(partnerId: string, userId: string, now: number, keepRevoked: number): Promise<number> {
    const of = this.db.selectFrom('business_user_grants').where('partner_id', '=', partnerId).where('user_id', '=', userId);
    const unredeemed = of.select('id').where('code_used_at', 'is', null).where('code_expires_at', '<=', now);
    await this.db.deleteFrom('business_user_grants').where('id', 'in', unredeemed).execute();
    const revoked = of.select('id').where('revoked_at', 'is not', null);
    await this.db.deleteFrom('business_user_tokens').where('grant_id', 'in', revoked).execute();
    const beyond = await revoked.orderBy('revoked_at', 'desc').orderBy('id', 'desc').offset(keepRevoked).limit(1_000_000).execute();
    if (beyond.length > 0)
      await this.db
        .deleteFrom('business_user_grants')
        .where(
          'id',
          'in',
          beyond.map((g) => g.id),
        )
        .execute();
    const row = await of
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Bounds a grant's tokens before a new one: dead access tokens are forgotten, the oldest live
   * ones revoked past `liveAccess - 1`, and only the newest `replacedRefresh` replaced refresh
   * tokens kept (enough to tell an old one presented again).
   */
  async pruneTokens(grantId: string, now: number, limits: { liveAccess: number; replacedRefresh: number }): Promise<void> {
    await this.db
      .deleteFrom('business_user_tokens')
      .where('grant_id', '=', grantId)
      .where('kind', '=', 'access')
      .where((eb) => eb.or([eb('revoked_at', 'is not', null), eb('expires_at', '<=', now)]))
      .execute();
    const live = await this.db
      .selectFrom('business_user_tokens')
      .select('id')
      .where('grant_id', '=', grantId)
      .where('kind', '=', 'access')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(limits.liveAccess - 1)
      .limit(1_000_000)
      .execute();
    if (live.length > 0)
      await this.db
        .updateTable('business_user_tokens')
        .set({ revoked_at: now })
        .where(
          'id',
          'in',
          live.map((t) => t.id),
        )
        .execute();
    const replaced = await this.db
      .selectFrom('business_user_tokens')
      .select('id')
      .where('grant_id', '=', grantId)
      .where('kind', '=', 'refresh')
      .where('revoked_at', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(limits.replacedRefresh)
      .limit(1_000_000)
      .execute();
    if (replaced.length > 0)
      await this.db
        .deleteFrom('business_user_tokens')
        .where(
          'id',
          'in',
          replaced.map((t) => t.id),
        )
        .execute();
  }
}
