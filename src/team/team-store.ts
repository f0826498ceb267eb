import type { Selectable, Updateable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { OperatorAccountsTable, OperatorTokensTable } from './team-tables.js';

export type AccountRow = Selectable<OperatorAccountsTable>;
export type TokenRow = Selectable<OperatorTokensTable>;

/** Every query of operator accounts, their tokens and console sessions. */
export const teamStore = {
  accounts(db: DbOrTx): Promise<AccountRow[]> {
    return db.selectFrom('operator_accounts').selectAll().orderBy('email').limit(1000).execute();
  },
  account(db: DbOrTx, id: string): Promise<AccountRow | undefined> {
    return db.selectFrom('operator_accounts').selectAll().where('id', '=', id).executeTakeFirst();
  },
  accountByEmail(db: DbOrTx, email: string): Promise<AccountRow | undefined> {
    return db.selectFrom('operator_accounts').selectAll().where('email', '=', email).executeTakeFirst();
  },
  accountBySetupToken(db: DbOrTx, hash: string): Promise<AccountRow | undefined> {
    return db.selectFrom('operator_accounts').selectAll().where('setup_token_hash', '=', hash).executeTakeFirst();
  },
  accountBySubject(db: DbOrTx, subject: string): Promise<AccountRow | undefined> {
    return db.selectFrom('operator_accounts').selectAll().where('sso_subject', '=', subject).executeTakeFirst();
  },
  async insertAccount(db: DbOrTx, row: OperatorAccountsTable): Promise<void> {
    await db.insertInto('operator_accounts').values(row).execute();
  },
  async updateAccount(db: DbOrTx, id: string, change: Updateable<OperatorAccountsTable>): Promise<void> {
    await db.updateTable('operator_accounts').set(change).where('id', '=', id).execute();
  },
  /** Enabled admins who can sign in: set up with a password and a second factor, or known to the identity provider. */
  async countUsableAdmins(db: DbOrTx): Promise<number> {
    const row = await db
      .selectFrom('operator_accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .where('disabled_at', 'is', null)
      .where((eb) =>
        eb.or([eb.and([eb('setup_token_hash', 'is', null), eb('totp_secret', 'is not', null)]), eb('sso_subject', 'is not', null)]),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  tokens(db: DbOrTx, accountId?: string): Promise<TokenRow[]> {
    let query = db.selectFrom('operator_tokens').selectAll();
    if (accountId) query = query.where('account_id', '=', accountId);
    return query.orderBy('created_at', 'desc').limit(1000).execute();
  },
  /** An account's tokens neither revoked nor expired (their number is capped). */
  async countLiveTokens(db: DbOrTx, accountId: string, now: number): Promise<number> {
    const row = await db
      .selectFrom('operator_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
  token(db: DbOrTx, id: string): Promise<TokenRow | undefined> {
    return db.selectFrom('operator_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  },
  tokenByHash(db: DbOrTx, hash: string) {
    return db
      .selectFrom('operator_tokens as t')
      .innerJoin('operator_accounts as a', 'a.id', 't.account_id')
      .select([
        't.id',
        't.role',
        't.expires_at',
        't.revoked_at',
        't.last_used_at',
        'a.id as account_id',
        'a.email',
        'a.role as account_role',
        'a.disabled_at',
      ])
      .where('t.token_hash', '=', hash)
      .executeTakeFirst();
  },
  async insertToken(db: DbOrTx, row: OperatorTokensTable): Promise<void> {
    await db.insertInto('operator_tokens').values(row).execute();
  },
  async touchToken(db: DbOrTx, id: string, at: number): Promise<void> {
    await db.updateTable('operator_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  },
  async revokeToken(db: DbOrTx, id: string, at: number): Promise<void> {
    await db.updateTable('operator_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  },
  async revokeTokensOf(db: DbOrTx, accountId: string, at: number): Promise<void> {
    await db
      .updateTable('operator_tokens')
      .set({ revoked_at: at })
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .execute();
  },

  sessionByHash(db: DbOrTx, hash: string) {
    return db
      .selectFrom('operator_sessions as s')
      .innerJoin('operator_accounts as a', 'a.id', 's.account_id')
      .select(['s.expires_at', 'a.id as account_id', 'a.email', 'a.role', 'a.disabled_at'])
      .where('s.id', '=', hash)
      .executeTakeFirst();
  },
  async insertSession(
    db: DbOrTx,
    row: { id: string; account_id: string; created_at: number; expires_at: number; method: string },
  ): Promise<void> {
    await db.insertInto('operator_sessions').values(row).execute();
  },
  async deleteSession(db: DbOrTx, hash: string): Promise<void> {
    await db.deleteFrom('operator_sessions').where('id', '=', hash).execute();
  },
  async deleteSessionsOf(db: DbOrTx, accountId: string): Promise<void> {
    await db.deleteFrom('operator_sessions').where('account_id', '=', accountId).execute();
  },
  async purgeEnded(db: DbOrTx, now: number): Promise<void> {
    await db.deleteFrom('operator_sessions').where('expires_at', '<=', now).execute();
  },
};
