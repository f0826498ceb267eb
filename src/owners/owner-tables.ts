import type { PbsMigration } from '../platform/db/migrate.js';

/**
 * A business user: a person who manages businesses on the platform (an owner, a manager). A
 * partner acts for them once they authorize it (docs/owners.md); their token reaches only the
 * businesses they manage.
 */
export interface BusinessUsersTable {
  id: string;
  name: string;
  /** Lower-cased; one account per address. */
  email: string;
  created_at: number;
  /** Argon2id of their password (production sign-in, docs/owners.md); null until the operator sets one. */
  password_hash: string | null;
}

/** Which businesses a business user manages. */
export interface BusinessUserBusinessesTable {
  user_id: string;
  business_id: string;
  created_at: number;
}

/** Where a partner's app may receive a business user's authorization code (docs/owners.md). */
export interface OauthRedirectUrisTable {
  partner_id: string;
  uri: string;
  created_at: number;
}

/**
 * A business user's authorization of a partner's OAuth client: made when they consent, redeemed
 * once through its code, and then the source of that partner's tokens for them until revoked.
 */
export interface BusinessUserGrantsTable {
  id: string;
  partner_id: string;
  /** The partner's OAuth client credential the code was issued to. */
  credential_id: string;
  user_id: string;
  /** Granted scopes, space-separated. */
  scope: string;
  code_hash: string;
  code_expires_at: number;
  /** When the code was redeemed; a second redemption revokes the grant (RFC 6749 §4.1.2). */
  code_used_at: number | null;
  redirect_uri: string;
  /** 1 when the authorization request named redirect_uri: the token request must then repeat it. */
  redirect_given: number;
  code_challenge: string | null;
  /** `S256` or `plain` (RFC 7636). */
  code_challenge_method: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** Access and refresh tokens of a grant; each is derived from its id, so only its hash is kept. */
export interface BusinessUserTokensTable {
  id: string;
  grant_id: string;
  /** `access` or `refresh`. */
  kind: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    business_users: BusinessUsersTable;
    business_user_businesses: BusinessUserBusinessesTable;
    oauth_redirect_uris: OauthRedirectUrisTable;
    business_user_grants: BusinessUserGrantsTable;
    business_user_tokens: BusinessUserTokensTable;
  }
}

export const businessUsersMigration: PbsMigration = {
  name: '1100_business_users',
  async up(db) {
    await db.schema
      .createTable('business_users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('business_user_businesses')
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('business_user_businesses_pk', ['user_id', 'business_id'])
      .execute();
    // Who manages a business (a lead's business user, the operator's view of a business).
    await db.schema
      .createIndex('business_user_businesses_business')
      .on('business_user_businesses')
      .columns(['business_id', 'user_id'])
      .execute();
  },
};

export const businessUserGrantsMigration: PbsMigration = {
  name: '1110_business_user_grants',
  async up(db) {
    await db.schema
      .createTable('oauth_redirect_uris')
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('uri', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_redirect_uris_pk', ['partner_id', 'uri'])
      .execute();
    await db.schema
      .createTable('business_user_grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('credential_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull().unique())
      .addColumn('code_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('code_used_at', 'bigint')
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('redirect_given', 'integer', (c) => c.notNull())
      .addColumn('code_challenge', 'text')
      .addColumn('code_challenge_method', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    // A business user's authorizations (revoked with the user; listed for the operator).
    await db.schema.createIndex('business_user_grants_user').on('business_user_grants').columns(['user_id', 'created_at']).execute();
    await db.schema
      .createTable('business_user_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('business_user_tokens_grant').on('business_user_tokens').columns(['grant_id', 'kind']).execute();
  },
};

export const businessUserPasswordsMigration: PbsMigration = {
  name: '1120_business_user_passwords',
  async up(db) {
    await db.schema.alterTable('business_users').addColumn('password_hash', 'text').execute();
  },
};
