import type { Selectable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { CredentialKind, CredentialsTable, PartnerInterfacesTable, PartnersTable } from './partner-tables.js';
import './partner-tables.js';

export type PartnerRow = Selectable<PartnersTable>;
export type InterfaceRow = Selectable<PartnerInterfacesTable>;
export type CredentialRow = Selectable<CredentialsTable>;

/** SQL for partners, their interface grants, credentials, tokens and business links. */
export class PartnerStore {
  constructor(private readonly db: DbOrTx) {}

  insertPartner(row: PartnerRow) {
    return this.db.insertInto('partners').values(row).execute();
  }

  findPartner(id: string) {
    return this.db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listPartners(limit: number, offset: number) {
    const total = await this.db
      .selectFrom('partners')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await this.db.selectFrom('partners').selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
    return { total: Number(total.n), rows };
  }

  /**
   * Partners by id, or whose name holds `text` (any case): the operator's "find anything". A `%`
   * or `_` typed matches more, as a wildcard would; the partners of a platform are few.
   */
  findPartners(text: string, limit: number) {
    return this.db
      .selectFrom('partners')
      .select(['id', 'name', 'status'])
      .where((eb) => eb.or([eb('id', '=', text), eb(eb.fn<string>('lower', ['name']), 'like', `%${text.toLowerCase()}%`)]))
      .orderBy('name')
      .limit(limit)
      .execute();
  }

  setPartnerStatus(id: string, status: PartnerRow['status'], now: number) {
    return this.db.updateTable('partners').set({ status, updated_at: now }).where('id', '=', id).executeTakeFirst();
  }

  interfacesOf(partnerIds: string[]) {
    if (partnerIds.length === 0) return Promise.resolve<InterfaceRow[]>([]);
    return this.db.selectFrom('partner_interfaces').selectAll().where('partner_id', 'in', partnerIds).execute();
  }

  upsertInterface(row: InterfaceRow) {
    const { partner_id: _p, interface: _i, ...update } = row;
    return this.db
      .insertInto('partner_interfaces')
      .values(row)
      .onConflict((oc) => oc.columns(['partner_id', 'interface']).doUpdateSet(update))
      .execute();
  }

  insertCredential(row: CredentialRow) {
    return this.db.insertInto('credentials').values(row).execute();
  }

  findCredential(id: string) {
    return this.db.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findCredentialByPublicId(kind: CredentialKind, publicId: string) {
    return this.db.selectFrom('credentials').selectAll().where('kind', '=', kind).where('public_id', '=', publicId).executeTakeFirst();
  }

  /** API keys are looked up by the hash of the whole key (current or, during a grace period, previous). */
  findApiKeyByHash(hash: string) {
    return this.db
      .selectFrom('credentials')
      .selectAll()
      .where('kind', '=', 'api_key')
      .where((eb) => eb.or([eb('secret_hash', '=', hash), eb('previous_secret_hash', '=', hash)]))
      .executeTakeFirst();
  }

  listCredentials(partnerId: string) {
    return this.db.selectFrom('credentials').selectAll().where('partner_id', '=', partnerId).orderBy('created_at').orderBy('id').execute();
  }

  updateCredential(id: string, change: Partial<CredentialRow>) {
    return this.db.updateTable('credentials').set(change).where('id', '=', id).executeTakeFirst();
  }

  insertToken(row: {
    id: string;
    credential_id: string;
    partner_id: string;
    token_hash: string;
    issued_for_secret: string;
    created_at: number;
    expires_at: number;
  }) {
    return this.db
      .insertInto('oauth_tokens')
      .values({ ...row, revoked_at: null })
      .execute();
  }

  /** A live token issued for the client's current secret. */
  findLiveToken(credentialId: string, secretHash: string, now: number) {
    return this.db
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .where('issued_for_secret', '=', secretHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('expires_at', 'desc')
      .executeTakeFirst();
  }

  findTokenByHash(hash: string) {
    return this.db
      .selectFrom('oauth_tokens')
      .innerJoin('credentials', 'credentials.id', 'oauth_tokens.credential_id')
      .select([
        'oauth_tokens.id',
        'oauth_tokens.partner_id',
        'oauth_tokens.credential_id',
        'oauth_tokens.expires_at',
        'oauth_tokens.revoked_at',
        'credentials.revoked_at as credential_revoked_at',
      ])
      .where('oauth_tokens.token_hash', '=', hash)
      .executeTakeFirst();
  }

  /** Tokens of the credential that would outlive `at` expire then instead (a rotation's grace). */
  expireTokensOf(credentialId: string, at: number) {
    return this.db
      .updateTable('oauth_tokens')
      .set({ expires_at: at })
      .where('credential_id', '=', credentialId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', at)
      .execute();
  }

  revokeTokensOf(credentialId: string, now: number) {
    return this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('credential_id', '=', credentialId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  linkBusiness(row: { partner_id: string; business_id: string; comment: string | null; created_at: number }) {
    return this.db
      .insertInto('partner_businesses')
      .values(row)
      .onConflict((oc) => oc.columns(['partner_id', 'business_id']).doUpdateSet({ comment: row.comment }))
      .execute();
  }

  unlinkBusiness(partnerId: string, businessId: string) {
    return this.db
      .deleteFrom('partner_businesses')
      .where('partner_id', '=', partnerId)
      .where('business_id', '=', businessId)
      .executeTakeFirst();
  }

  async isLinked(partnerId: string, businessId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('partner_businesses')
      .select('business_id')
      .where('partner_id', '=', partnerId)
      .where('business_id', '=', businessId)
      .executeTakeFirst();
    return !!row;
  }

  /** Which of `businessIds` are linked to the partner. */
  async linkedAmong(partnerId: string, businessIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < businessIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('partner_businesses')
        .select('business_id')
        .where('partner_id', '=', partnerId)
        .where('business_id', 'in', businessIds.slice(i, i + 500))
        .execute();
      for (const r of rows) out.add(r.business_id);
    }
    return out;
  }

  /** Of `partnerIds`, the active partners with `iface` enabled. */
  async activeWith(iface: string, partnerIds: readonly string[]): Promise<Set<string>> {
    if (partnerIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('partners as p')
      .innerJoin('partner_interfaces as i', 'i.partner_id', 'p.id')
      .select('p.id')
      .where('p.id', 'in', [...partnerIds])
      .where('p.status', '=', 'active')
      .where('i.interface', '=', iface)
      .where('i.enabled', '=', 1)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** Of `partnerIds`, the partners linked to the business. */
  async partnersLinkedTo(businessId: string, partnerIds: readonly string[]): Promise<Set<string>> {
    if (partnerIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('partner_businesses')
      .select('partner_id')
      .where('business_id', '=', businessId)
      .where('partner_id', 'in', [...partnerIds])
      .execute();
    return new Set(rows.map((r) => r.partner_id));
  }

  async listLinks(partnerId: string, limit: number, offset: number) {
    const base = this.db.selectFrom('partner_businesses').where('partner_id', '=', partnerId);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .select(['business_id', 'comment', 'created_at'])
      .orderBy('created_at')
      .orderBy('business_id')
      .limit(limit)
      .offset(offset)
      .execute();
    return { total: Number(total.n), rows };
  }
}
