import type { DbOrTx } from '../platform/db/database.js';
import type { PortalLinksTable, PortalSessionsTable } from './portal-tables.js';
import './portal-tables.js';

export class PortalStore {
  constructor(private readonly db: DbOrTx) {}

  insertLink(link: PortalLinksTable) {
    return this.db.insertInto('portal_links').values(link).execute();
  }

  /** Marks a link used if it is unused and live; true when this call was the one that used it. */
  async useLink(tokenHash: string, now: number): Promise<string | undefined> {
    const link = await this.db
      .updateTable('portal_links')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('partner_id')
      .executeTakeFirst();
    return link?.partner_id;
  }

  insertSession(session: PortalSessionsTable) {
    return this.db.insertInto('portal_sessions').values(session).execute();
  }

  liveSession(id: string, now: number) {
    return this.db
      .selectFrom('portal_sessions')
      .select(['id', 'partner_id', 'created_at', 'expires_at', 'credentials_stamp'])
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async revokeSession(id: string, now: number): Promise<void> {
    await this.db.updateTable('portal_sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  async restampSession(id: string, stamp: string): Promise<void> {
    await this.db.updateTable('portal_sessions').set({ credentials_stamp: stamp }).where('id', '=', id).execute();
  }

  async revokeSessionsOf(partnerId: string, now: number): Promise<number> {
    const result = await this.db
      .updateTable('portal_sessions')
      .set({ revoked_at: now })
      .where('partner_id', '=', partnerId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Forgets links and sessions that ended before `before` (wall ms). */
  async purgeEnded(before: number): Promise<void> {
    await this.db.deleteFrom('portal_links').where('expires_at', '<', before).execute();
    await this.db.deleteFrom('portal_sessions').where('expires_at', '<', before).execute();
  }
}
