import type { Insertable, Selectable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { BusinessUsersTable } from './owner-tables.js';
import './owner-tables.js';

export type BusinessUser = Selectable<BusinessUsersTable>;

/** SQL of business users and the businesses they manage. */
export class OwnerStore {
  constructor(private readonly db: DbOrTx) {}

  user(id: string): Promise<BusinessUser | undefined> {
    return this.db.selectFrom('business_users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  userByEmail(email: string): Promise<BusinessUser | undefined> {
    return this.db.selectFrom('business_users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async insertUser(user: Insertable<BusinessUsersTable>): Promise<void> {
    await this.db.insertInto('business_users').values(user).execute();
  }

  async updateUser(id: string, change: Partial<Pick<BusinessUser, 'name' | 'email' | 'password_hash'>>): Promise<void> {
    await this.db.updateTable('business_users').set(change).where('id', '=', id).execute();
  }

  async deleteUser(id: string): Promise<void> {
    await this.db.deleteFrom('business_user_businesses').where('user_id', '=', id).execute();
    await this.db.deleteFrom('business_users').where('id', '=', id).execute();
  }

  /** Business users by name then id, a page at a time; those managing `businessId` when given. */
  users(limit: number, offset: number, businessId?: string): Promise<BusinessUser[]> {
    let query = this.db.selectFrom('business_users').selectAll('business_users');
    if (businessId !== undefined)
      query = query.where('id', 'in', (sub) =>
        sub.selectFrom('business_user_businesses').select('user_id').where('business_id', '=', businessId),
      );
    return query.orderBy('name').orderBy('id').limit(limit).offset(offset).execute();
  }

  async count(businessId?: string): Promise<number> {
    let query = this.db.selectFrom('business_users').select((eb) => eb.fn.countAll<number | string>().as('n'));
    if (businessId !== undefined)
      query = query.where('id', 'in', (sub) =>
        sub.selectFrom('business_user_businesses').select('user_id').where('business_id', '=', businessId),
      );
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** The businesses each of `userIds` manages, in id order. */
  async businessesOf(userIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('business_user_businesses')
      .select(['user_id', 'business_id'])
      .where('user_id', 'in', userIds)
      .orderBy('user_id')
      .orderBy('business_id')
      .execute();
    for (const row of rows) out.get(row.user_id)?.push(row.business_id);
    return out;
  }

  /** Adds the links not there yet. */
  async link(userId: string, businessIds: string[], now: number): Promise<void> {
    if (businessIds.length === 0) return;
    await this.db
      .insertInto('business_user_businesses')
      .values(businessIds.map((business_id) => ({ user_id: userId, business_id, created_at: now })))
      .onConflict((oc) => oc.columns(['user_id', 'business_id']).doNothing())
      .execute();
  }

  /** Removes a link; whether there was one. */
  async unlink(userId: string, businessId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('business_user_businesses')
      .where('user_id', '=', userId)
      .where('business_id', '=', businessId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Whether the business user manages the business. */
  async manages(userId: string, businessId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('business_user_businesses')
      .select('business_id')
      .where('user_id', '=', userId)
      .where('business_id', '=', businessId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The business users who manage a business. */
  async managersOf(businessId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('business_user_businesses').select('user_id').where('business_id', '=', businessId).execute();
    return rows.map((r) => r.user_id);
  }
}
