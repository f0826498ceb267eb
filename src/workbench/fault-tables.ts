import type { PbsMigration } from '../platform/db/migrate.js';

/** A fault rule of a partner (sandbox): what to match and what to do instead (docs/faults.md). */
export interface FaultRulesTable {
  id: string;
  partner_id: string;
  /** `METHOD /path/{param}` as the OpenAPI document names it. */
  operation: string;
  /** Only calls for this business, when set. */
  business_id: string | null;
  action: 'error' | 'latency' | 'drop';
  status: number | null;
  error_code: string | null;
  retry_after_seconds: number | null;
  latency_ms: number | null;
  /** Calls left to act on; null: every matching call until the rule expires. */
  remaining: number | null;
  /** Share of matching calls acted on, 1–100. */
  percent: number;
  created_at: number;
  expires_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    fault_rules: FaultRulesTable;
  }
}

export const faultRulesMigration: PbsMigration = {
  name: '0903_fault_rules',
  async up(db) {
    await db.schema
      .createTable('fault_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('error_code', 'text')
      .addColumn('retry_after_seconds', 'integer')
      .addColumn('latency_ms', 'integer')
      .addColumn('remaining', 'integer')
      .addColumn('percent', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fault_rules_partner').on('fault_rules').columns(['partner_id']).execute();
  },
};
