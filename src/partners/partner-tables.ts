import type { PbsMigration } from '../platform/db/migrate.js';

export interface PartnersTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  created_at: number;
  updated_at: number;
}

export interface PartnerInterfacesTable {
  partner_id: string;
  interface: string;
  enabled: number;
  per_second: number | null;
  per_day: number | null;
  updated_at: number;
}

export type CredentialKind = 'api_key' | 'basic' | 'oauth_client';

export interface CredentialsTable {
  id: string;
  partner_id: string;
  kind: CredentialKind;
  /** Shown in listings: the username, the client id, or the first characters of an API key. */
  public_id: string;
  label: string | null;
  secret_hash: string;
  /** The secret replaced by the last rotation, accepted until previous_expires_at. */
  previous_secret_hash: string | null;
  previous_expires_at: number | null;
  created_at: number;
  rotated_at: number | null;
  revoked_at: number | null;
}

export interface OauthTokensTable {
  id: string;
  credential_id: string;
  partner_id: string;
  token_hash: string;
  /** The client secret's hash when the token was issued: a rotated secret never gets an older token back. */
  issued_for_secret: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface PartnerBusinessesTable {
  partner_id: string;
  business_id: string;
  comment: string | null;
  created_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    partners: PartnersTable;
    partner_interfaces: PartnerInterfacesTable;
    credentials: CredentialsTable;
    oauth_tokens: OauthTokensTable;
    partner_businesses: PartnerBusinessesTable;
  }
}

export const partnersMigration: PbsMigration = {
  name: '0003_partners',
  async up(db) {
    await db.schema
      .createTable('partners')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('partner_interfaces')
      .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
      .addColumn('interface', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('per_second', 'integer')
      .addColumn('per_day', 'integer')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('partner_interfaces_pk', ['partner_id', 'interface'])
      .execute();
    await db.schema
      .createTable('credentials')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('previous_secret_hash', 'text')
      .addColumn('previous_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('credentials_public_id').on('credentials').columns(['kind', 'public_id']).unique().execute();
    await db.schema.createIndex('credentials_secret_hash').on('credentials').column('secret_hash').execute();
    await db.schema.createIndex('credentials_previous_hash').on('credentials').column('previous_secret_hash').execute();
    await db.schema.createIndex('credentials_partner').on('credentials').column('partner_id').execute();
    await db.schema
      .createTable('oauth_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('credential_id', 'text', (c) => c.notNull().references('credentials.id').onDelete('cascade'))
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('oauth_tokens_credential').on('oauth_tokens').column('credential_id').execute();
    await db.schema
      .createTable('partner_businesses')
      .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
      .addColumn('business_id', 'text', (c) => c.notNull().references('businesses.id').onDelete('cascade'))
      .addColumn('comment', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('partner_businesses_pk', ['partner_id', 'business_id'])
      .execute();
    await db.schema.createIndex('partner_businesses_business').on('partner_businesses').column('business_id').execute();
  },
};

/** Tokens remember which client secret they were issued for (issue 13 §2: rotation ends older tokens). */
export const oauthTokenSecretMigration: PbsMigration = {
  name: '0006_oauth_tokens_issued_for',
  async up(db) {
    await db.schema.alterTable('oauth_tokens').addColumn('issued_for_secret', 'text').execute();
  },
};
