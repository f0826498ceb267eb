import type { PbsMigration } from '../db/migrate.js';

/**
 * The audit trail: one row per operator action that changed something, or revealed a secret
 * (docs/security.md "Audit trail"). Written in the transaction of the change it records
 * (audit-trail.ts); no route edits or deletes a row, and only the retention purge removes them.
 * Times are wall time: the operator moves the sandbox clock, not the trail's.
 */
export interface OperatorAuditTable {
  id: string;
  at: number;
  /** `bootstrap` (the shared admin token), `session` (a console sign-in) or `token` (a personal API token). */
  actor_via: string;
  actor_account_id: string | null;
  actor_token_id: string | null;
  /** The account's e-mail (kept as it was then), or "bootstrap token". */
  actor_name: string;
  /** The client address the request came from. */
  address: string;
  /** The operation: method and route (`POST /admin/v1/partners/:partner_id/disable`). */
  action: string;
  /** What it acted on: the first of the route's ids (`partner`, `business`, `credential`…), or one the service named. */
  target_kind: string | null;
  target_id: string | null;
  /** The partner and business concerned, when known: what the trail is searched by. */
  partner_id: string | null;
  business_id: string | null;
  /** JSON: the route's parameters and the request's fields (secrets replaced), or before → after. */
  details: string;
}

declare module '../db/database.js' {
  interface Tables {
    operator_audit: OperatorAuditTable;
  }
}

export const auditTrailMigration: PbsMigration = {
  name: '0011_operator_audit',
  async up(db) {
    await db.schema
      .createTable('operator_audit')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor_via', 'text', (c) => c.notNull())
      .addColumn('actor_account_id', 'text')
      .addColumn('actor_token_id', 'text')
      .addColumn('actor_name', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_kind', 'text')
      .addColumn('target_id', 'text')
      .addColumn('partner_id', 'text')
      .addColumn('business_id', 'text')
      .addColumn('details', 'text', (c) => c.notNull())
      .execute();
    // Newest first, overall and per person, partner and business (the searches the console offers).
    await db.schema.createIndex('operator_audit_at').on('operator_audit').columns(['at', 'id']).execute();
    await db.schema.createIndex('operator_audit_account').on('operator_audit').columns(['actor_account_id', 'at']).execute();
    await db.schema.createIndex('operator_audit_partner').on('operator_audit').columns(['partner_id', 'at']).execute();
    await db.schema.createIndex('operator_audit_business').on('operator_audit').columns(['business_id', 'at']).execute();
  },
};
