import type { PbsMigration } from '../platform/db/migrate.js';

/** A single-use sign-in link the operator issued for a partner (only its token's hash is kept). */
export interface PortalLinksTable {
  token_hash: string;
  partner_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/**
 * A partner's portal session (only its token's hash is kept). Its times, like a link's, are wall
 * time: a session's life does not bend with the sandbox clock.
 */
export interface PortalSessionsTable {
  id: string;
  partner_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /**
   * The partner's credentials when the session began (a stamp any rotation or revocation
   * changes): a session outlives no credential change. Null for sessions from before it (ended).
   */
  credentials_stamp: string | null;
}

declare module '../platform/db/database.js' {
  interface Tables {
    portal_links: PortalLinksTable;
    portal_sessions: PortalSessionsTable;
  }
}

export const portalMigration: PbsMigration = {
  name: '0901_portal',
  async up(db) {
    await db.schema
      .createTable('portal_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createTable('portal_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('portal_sessions_partner').on('portal_sessions').columns(['partner_id']).execute();
  },
};

/** Sessions remember the credentials they began with (PortalSessionsTable.credentials_stamp). */
export const portalSessionStampMigration: PbsMigration = {
  name: '0905_portal_session_stamp',
  async up(db) {
    await db.schema.alterTable('portal_sessions').addColumn('credentials_stamp', 'text').execute();
  },
};
