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
}

/** Which businesses a business user manages. */
export interface BusinessUserBusinessesTable {
  user_id: string;
  business_id: string;
  created_at: number;
}

declare module '../platform/db/database.js' {
  interface Tables {
    business_users: BusinessUsersTable;
    business_user_businesses: BusinessUserBusinessesTable;
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
