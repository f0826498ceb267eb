import type { PbsMigration } from '../platform/db/migrate.js';

/**
 * Operator accounts (docs/security.md "Operators and roles"): a person with a role, who signs in
 * to the console through the identity provider (SSO) or with a password and a TOTP code.
 */
export interface OperatorAccountsTable {
  id: string;
  email: string;
  name: string;
  role: string;
  /** Argon2id (platform/passwords.ts); null: SSO only, or not set up yet. */
  password_hash: string | null;
  /** The TOTP secret (base32), sealed with a key derived from PBS_SECRET_KEY; null until set up. */
  totp_secret: string | null;
  /** The last TOTP time step accepted: a code is taken once. */
  totp_last_step: number | null;
  /** The identity provider's subject (`iss|sub`), once the person signed in through it. */
  sso_subject: string | null;
  /** The hash of the single-use setup token an invitation carries; null once used. */
  setup_token_hash: string | null;
  setup_expires_at: number | null;
  created_at: number;
  disabled_at: number | null;
  last_sign_in_at: number | null;
}

/** A personal API token: the role is at most its owner's; only the token's hash is kept. */
export interface OperatorTokensTable {
  id: string;
  account_id: string;
  name: string;
  role: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** A console session of an account (only the cookie's hash is kept). Wall time, as the portal's. */
export interface OperatorSessionsTable {
  id: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  /** How the session began: `password` or `sso`. */
  method: string;
}

declare module '../platform/db/database.js' {
  interface Tables {
    operator_accounts: OperatorAccountsTable;
    operator_tokens: OperatorTokensTable;
    operator_sessions: OperatorSessionsTable;
  }
}

export const teamMigration: PbsMigration = {
  name: '1201_operator_accounts',
  async up(db) {
    await db.schema
      .createTable('operator_accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text')
      .addColumn('totp_secret', 'text')
      .addColumn('totp_last_step', 'bigint')
      .addColumn('sso_subject', 'text', (c) => c.unique())
      .addColumn('setup_token_hash', 'text', (c) => c.unique())
      .addColumn('setup_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('disabled_at', 'bigint')
      .addColumn('last_sign_in_at', 'bigint')
      .execute();
    await db.schema
      .createTable('operator_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('operator_accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('operator_tokens_account').on('operator_tokens').columns(['account_id']).execute();
    await db.schema
      .createTable('operator_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('operator_accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('operator_sessions_account').on('operator_sessions').columns(['account_id']).execute();
  },
};
