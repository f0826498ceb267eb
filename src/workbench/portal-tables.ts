import type { PbsMigration } from '../platform/db/migrate.js';

/** A single-use sign-in link the operator issued for a partner (only its token's hash is kept). */
export interface PortalLinksTable {
  token_hash: string;
  partner_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A partner's portal session (only its token's hash is kept). */
export interface PortalSessionsTable {
  id: string;
  partner_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
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
