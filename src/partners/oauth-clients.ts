import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId, sha256Hex } from '../platform/ids.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import { ACCESS_TOKEN_TTL_SECONDS, deriveToken, secretAccepted } from './credential-service.js';
import { PartnerStore, type CredentialRow } from './partner-store.js';

/** An OAuth client credential and its partner. */
export interface OauthClientView {
  credentialId: string;
  partnerId: string;
  partnerName: string;
}

/**
 * Partners' OAuth clients: the client-credentials token exchange, and the clients the business
 * user's authorization (the owners family) names and authenticates.
 */
export class OauthClientService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly keys: SecretKeys,
  ) {}

  private store() {
    return new PartnerStore(this.database.db);
  }

  /** The live OAuth client of an id whose partner is active; undefined otherwise (an authorization request names one). */
  async find(clientId: string): Promise<OauthClientView | undefined> {
    const live = await this.live(clientId);
    return live && view(live.row, live.partnerName);
  }

  /** The OAuth client whose id and secret these are (its partner active); 401 INVALID_CLIENT otherwise. */
  async authenticate(clientId: string, clientSecret: string): Promise<OauthClientView> {
    return view(...(await this.authenticated(clientId, clientSecret)));
  }

  /**
   * OAuth 2.0 client credentials. While a token is live the same token is returned with the
   * remaining lifetime, as the original did; tokens are derived from their id with a key derived
   * from PBS_SECRET_KEY (SecretKeys), so only their hash is stored and the database alone gives
   * no token away. A token derived under another key (the key changed) is not handed out again.
   */
  async exchangeClientCredentials(clientId: string, clientSecret: string) {
    const [row] = await this.authenticated(clientId, clientSecret);
    const now = this.clock.now();
    const secret = await this.keys.key('oauth-access-tokens');
    const live = await this.store().findLiveToken(row.id, row.secret_hash, now);
    if (live && sha256Hex(deriveToken(secret, live.id)) === live.token_hash) {
      return {
        access_token: deriveToken(secret, live.id),
        token_type: 'Bearer' as const,
        expires_in: Math.max(0, Math.floor((live.expires_at - now) / 1000)),
      };
    }
    const id = newId();
    const token = deriveToken(secret, id);
    await this.store().insertToken({
      id,
      credential_id: row.id,
      partner_id: row.partner_id,
      token_hash: sha256Hex(token),
      issued_for_secret: row.secret_hash,
      created_at: now,
      expires_at: now + ACCESS_TOKEN_TTL_SECONDS * 1000,
    });
    return { access_token: token, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS };
  }

  private async live(clientId: string): Promise<{ row: CredentialRow; partnerName: string } | undefined> {
    const row = await this.store().findCredentialByPublicId('oauth_client', clientId);
    const partner = row && row.revoked_at === null ? await this.store().findPartner(row.partner_id) : undefined;
    return row && partner && partner.status === 'active' ? { row, partnerName: partner.name } : undefined;
  }

  private async authenticated(clientId: string, clientSecret: string): Promise<[CredentialRow, string]> {
    const live = await this.live(clientId);
    if (!live || !secretAccepted(live.row, clientSecret, this.clock.now())) throw apiError('INVALID_CLIENT');
    return [live.row, live.partnerName];
  }
}

function view(row: CredentialRow, partnerName: string): OauthClientView {
  return { credentialId: row.id, partnerId: row.partner_id, partnerName };
}
