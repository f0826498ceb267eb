import { createHmac } from 'node:crypto';
import type { CredentialVerifier, Principal } from '../platform/auth/principal.js';
import { isPartnerInterface } from '../platform/auth/principal.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { fromFlag, isUniqueViolation, type Database, type DbOrTx } from '../platform/db/database.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import { apiError } from '../platform/errors.js';
import { newId, randomBase62, secretMatches, sha256Hex } from '../platform/ids.js';
import type { SecretKeys } from '../platform/secret-keys.js';
import { PartnerStore, type CredentialRow } from './partner-store.js';
import type { CredentialKind } from './partner-tables.js';
import { BoundedMap } from '../platform/bounded-map.js';

/** 180 days, as the original client-credentials flow answered (docs/contract/reviews-and-engagement.md §7.3). */
export const ACCESS_TOKEN_TTL_SECONDS = 15_552_000;
const API_KEY_PREFIX = 'pbs_';
const ACCESS_TOKEN_PREFIX = 'pbs_at_';

export interface CredentialView {
  id: string;
  partner_id: string;
  kind: CredentialKind;
  label: string | null;
  /** api_key: the key's first characters; basic: the username; oauth_client: the client id. */
  public_id: string;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  previous_secret_valid_until: string | null;
}

/** The secret is only ever returned here, at creation or rotation. */
export interface IssuedCredential extends CredentialView {
  api_key?: string;
  username?: string;
  password?: string;
  client_id?: string;
  client_secret?: string;
}

/** What a live business user's token stands for (the owners family answers it). */
export interface BusinessUserReach {
  partner_id: string;
  credential_id: string;
  user_id: string;
  /** Granted scopes, space-separated. */
  scope: string;
}

interface CachedPrincipal {
  principal: Principal | null;
  until: number;
}

/**
 * Credentials of partners (API keys, data-ingestion basic credentials, OAuth clients), the
 * client-credentials token exchange, and the verifier the platform's auth uses. Secrets are
 * random and high-entropy, so a SHA-256 hash is stored and compared in constant time.
 */
export class CredentialService implements CredentialVerifier {
  private readonly cache = new BoundedMap<string, CachedPrincipal>(10_000);
  /** Loads under way, one per key, which every asker of that key shares. */
  private readonly loading = new Map<string, Promise<Principal | null>>();
  /** Moves on invalidate: a load begun before it must not store its answer. */
  private generation = 0;
  private businessUserTokens: { prefix: string; reach: (token: string) => Promise<BusinessUserReach | undefined> } | undefined;
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly cacheMs: number,
    private readonly keys: SecretKeys,
    /** Production: whether a partner is approved for launch (docs/readiness.md "Approval"); absent in the sandbox. */
    private readonly launchApproved?: (partnerId: string) => Promise<boolean>,
  ) {}

  private get db() {
    return this.database.db;
  }

  private store(db: DbOrTx = this.db) {
    return new PartnerStore(db);
  }

  /** Forget verified credentials (after any change to partners, grants or credentials). */
  invalidate(): void {
    this.cache.clear();
    this.loading.clear();
    this.generation++;
  }

  async issue(
    partnerId: string,
    input: { kind: CredentialKind; label?: string | null; username?: string; override_readiness?: boolean },
  ): Promise<IssuedCredential> {
    const partner = await this.store().findPartner(partnerId);
    if (!partner) throw apiError('NOT_FOUND', `Partner not found: ${partnerId}`);
    // A production credential for a partner nobody approved for launch is an explicit choice, recorded.
    const unapproved = this.launchApproved !== undefined && !(await this.launchApproved(partnerId));
    if (unapproved && input.override_readiness !== true)
      throw apiError(
        'CONFLICT',
        `Partner ${partnerId} is not approved for launch (docs/readiness.md): approve it first, or issue with override_readiness: true.`,
      );
    const now = this.clock.now();
    const { publicId, secret, secretFields } = this.newSecret(input.kind, input.kind === 'basic' ? input.username : undefined);
    const row: CredentialRow = {
      id: newId(),
      partner_id: partnerId,
      kind: input.kind,
      public_id: publicId,
      label: input.label ?? null,
      secret_hash: sha256Hex(secret),
      previous_secret_hash: null,
      previous_expires_at: null,
      created_at: now,
      rotated_at: null,
      revoked_at: null,
    };
    try {
      await this.database.transact(async (trx) => {
        noteAudit({
          target: { kind: 'credential', id: row.id },
          partnerId,
          after: { kind: input.kind, public_id: publicId, ...(unapproved ? { override_readiness: true } : {}) },
        });
        await this.store(trx).insertCredential(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw apiError('CONFLICT', `The ${input.kind} identifier ${publicId} is already taken.`);
      throw error;
    }
    return { ...toView(row), ...secretFields };
  }

  /**
   * New secret for the same credential; the old one keeps working for `graceSeconds`, and so do
   * access tokens issued before the rotation: they expire when the grace ends (at once without one).
   */
  async rotate(credentialId: string, graceSeconds = 0, ownedBy?: string): Promise<IssuedCredential> {
    const row = await this.credentialOf(credentialId, ownedBy);
    if (row.revoked_at !== null) throw apiError('CONFLICT', 'A revoked credential cannot be rotated.');
    const now = this.clock.now();
    const { publicId, secret, secretFields } = this.newSecret(row.kind, row.kind === 'api_key' ? undefined : row.public_id);
    const change: Partial<CredentialRow> = {
      public_id: publicId,
      secret_hash: sha256Hex(secret),
      previous_secret_hash: graceSeconds > 0 ? row.secret_hash : null,
      previous_expires_at: graceSeconds > 0 ? now + graceSeconds * 1000 : null,
      rotated_at: now,
    };
    await this.database.transact(async (trx) => {
      await this.store(trx).updateCredential(credentialId, change);
      if (row.kind === 'oauth_client') await this.store(trx).expireTokensOf(credentialId, now + graceSeconds * 1000);
    });
    this.invalidate();
    return { ...toView({ ...row, ...change }), ...secretFields };
  }

  async revoke(credentialId: string, ownedBy?: string): Promise<CredentialView> {
    const row = await this.credentialOf(credentialId, ownedBy);
    const now = this.clock.now();
    if (row.revoked_at === null) {
      await this.database.transact(async (trx) => {
        await this.store(trx).updateCredential(credentialId, { revoked_at: now, previous_secret_hash: null, previous_expires_at: null });
        await this.store(trx).revokeTokensOf(credentialId, now);
      });
    }
    this.invalidate();
    return toView({ ...row, revoked_at: row.revoked_at ?? now, previous_secret_hash: null, previous_expires_at: null });
  }

  /** The credential, if it exists and (given `ownedBy`, as the portal does) is that partner's: another's is not found either. */
  private async credentialOf(credentialId: string, ownedBy: string | undefined) {
    const row = await this.store().findCredential(credentialId);
    if (!row || (ownedBy !== undefined && row.partner_id !== ownedBy)) throw apiError('NOT_FOUND', `Credential not found: ${credentialId}`);
    return row;
  }

  /**
   * A stamp of the partner's credentials that every rotation or revocation changes (a new
   * secret's hash, a revocation), whatever the clocks say; issuing one does not. Portal sessions
   * begun under another stamp end.
   */
  async stampOf(partnerId: string): Promise<string> {
    const rows = await this.store().listCredentials(partnerId);
    const state = rows
      .filter((row) => row.rotated_at !== null || row.revoked_at !== null)
      .map((row) => `${row.id}:${row.secret_hash}:${row.revoked_at === null ? 'live' : 'revoked'}`)
      .sort()
      .join('\n');
    return sha256Hex(state);
  }

  async list(partnerId: string): Promise<CredentialView[]> {
    if (!(await this.store().findPartner(partnerId))) throw apiError('NOT_FOUND', `Partner not found: ${partnerId}`);
    return (await this.store().listCredentials(partnerId)).map(toView);
  }

  /**
   * Bearer tokens starting with `prefix` are business users' (docs/owners.md): `reach` says whom
   * and what a live one stands for. Set once, where the families are wired.
   */
  acceptBusinessUserTokens(prefix: string, reach: (token: string) => Promise<BusinessUserReach | undefined>): void {
    this.businessUserTokens = { prefix, reach };
  }

  async verifyBearer(token: string): Promise<Principal | null> {
    // Keyed by the token itself: a hit then costs no hashing (the cache lives in this process only).
    return this.cached(`b:${token}`, () => this.loadBearer(token));
  }

  private async loadBearer(token: string): Promise<Principal | null> {
    const users = this.businessUserTokens;
    if (users && token.startsWith(users.prefix)) return this.loadBusinessUserToken(token, users.reach);
    const hash = sha256Hex(token);
    const now = this.clock.now();
    if (token.startsWith(ACCESS_TOKEN_PREFIX)) {
      const t = await this.store().findTokenByHash(hash);
      if (!t || t.revoked_at !== null || t.credential_revoked_at !== null || t.expires_at <= now) return null;
      return this.principalFor(t.partner_id, t.credential_id, 'access_token');
    }
    const row = await this.store().findApiKeyByHash(hash);
    if (!row || row.revoked_at !== null) return null;
    if (row.secret_hash !== hash && !(row.previous_expires_at !== null && row.previous_expires_at > now)) return null;
    return this.principalFor(row.partner_id, row.id, 'api_key');
  }

  /** A business user's token: its grant's partner, through a client credential that is still live. */
  private async loadBusinessUserToken(token: string, reachOf: (token: string) => Promise<BusinessUserReach | undefined>) {
    const reach = await reachOf(token);
    if (!reach) return null;
    const client = await this.store().findCredential(reach.credential_id);
    if (!client || client.revoked_at !== null) return null;
    const principal = await this.principalFor(reach.partner_id, reach.credential_id, 'business_user_token');
    return principal && { ...principal, businessUser: { id: reach.user_id, scopes: reach.scope.split(' ') } };
  }

  knownBearer(token: string): Principal | undefined {
    return this.freshRenewing(`b:${token}`, () => this.loadBearer(token))?.principal ?? undefined;
  }

  async verifyBasic(username: string, password: string): Promise<Principal | null> {
    // Keyed by the credentials themselves, as bearer tokens are: a hit then costs no hashing.
    return this.cached(basicKey(username, password), () => this.loadBasic(username, password));
  }

  knownBasic(username: string, password: string): Principal | undefined {
    return this.freshRenewing(basicKey(username, password), () => this.loadBasic(username, password))?.principal ?? undefined;
  }

  private async loadBasic(username: string, password: string): Promise<Principal | null> {
    const row = await this.store().findCredentialByPublicId('basic', username);
    // Hash and compare even for an unknown user, so timing does not reveal which usernames exist.
    const accepted = secretAccepted(row ?? DUMMY_ROW, password, this.clock.now());
    if (!row || !accepted || row.revoked_at !== null) return null;
    return this.principalFor(row.partner_id, row.id, 'basic');
  }

  private async cached(key: string, load: () => Promise<Principal | null>): Promise<Principal | null> {
    const hit = this.freshRenewing(key, load);
    return hit ? hit.principal : this.reload(key, load);
  }

  /**
   * The cached entry while it is fresh. Past half its time it is reloaded in the background, so
   * requests do not all wait for the database when it expires (on PostgreSQL that wait was a
   * recurring latency spike).
   */
  private freshRenewing(key: string, load: () => Promise<Principal | null>): CachedPrincipal | undefined {
    const now = Date.now();
    const hit = this.fresh(key, now);
    if (hit && hit.until - now < this.cacheMs / 2 && !this.loading.has(key)) void this.reload(key, load).catch(() => {});
    return hit;
  }

  /** Loads `key` once for every concurrent asker; the answer is trusted for `cacheMs` from the load's start. */
  private reload(key: string, load: () => Promise<Principal | null>): Promise<Principal | null> {
    let pending = this.loading.get(key);
    if (pending) return pending;
    const wall = Date.now();
    const generation = this.generation;
    pending = load()
      .then((principal) => {
        if (this.cacheMs > 0 && generation === this.generation) {
          this.cache.set(key, { principal, until: wall + this.cacheMs });
        }
        return principal;
      })
      .finally(() => {
        if (this.loading.get(key) === pending) this.loading.delete(key);
      });
    this.loading.set(key, pending);
    return pending;
  }

  private fresh(key: string, now: number) {
    const hit = this.cache.get(key);
    return hit && hit.until > now ? hit : undefined;
  }

  private async principalFor(partnerId: string, credentialId: string, kind: Principal['credentialKind']): Promise<Principal | null> {
    const partner = await this.store().findPartner(partnerId);
    if (!partner) return null;
    const grants = await this.store().interfacesOf([partnerId]);
    const interfaces: Principal['interfaces'] = {};
    for (const g of grants) {
      if (isPartnerInterface(g.interface)) {
        interfaces[g.interface] = { enabled: fromFlag(g.enabled), perSecond: g.per_second, perDay: g.per_day };
      }
    }
    return {
      partnerId,
      partnerName: partner.name,
      partnerActive: partner.status === 'active',
      credentialId,
      credentialKind: kind,
      interfaces,
    };
  }

  private newSecret(kind: CredentialKind, username?: string) {
    switch (kind) {
      case 'api_key': {
        const key = `${API_KEY_PREFIX}${randomBase62(40)}`;
        return { publicId: `${key.slice(0, 12)}…`, secret: key, secretFields: { api_key: key } };
      }
      case 'basic': {
        const user = username ?? `pbs-${randomBase62(12)}`;
        if (!/^[A-Za-z0-9._@-]{3,100}$/.test(user)) {
          throw apiError('VALIDATION_ERROR', 'username must be 3 to 100 characters of A-Z a-z 0-9 . _ @ -', { field: 'username' });
        }
        const password = randomBase62(40);
        return { publicId: user, secret: password, secretFields: { username: user, password } };
      }
      case 'oauth_client': {
        const clientId = username ?? randomBase62(22);
        const clientSecret = randomBase62(64);
        return { publicId: clientId, secret: clientSecret, secretFields: { client_id: clientId, client_secret: clientSecret } };
      }
    }
  }
}

/** Whether `secret` is the credential's, or its previous one within the rotation's overlap. */
export function secretAccepted(
  row: Pick<CredentialRow, 'secret_hash' | 'previous_secret_hash' | 'previous_expires_at'>,
  secret: string,
  now: number,
): boolean {
  const current = secretMatches(secret, row.secret_hash);
  const previous =
    row.previous_secret_hash !== null &&
    row.previous_expires_at !== null &&
    row.previous_expires_at > now &&
    secretMatches(secret, row.previous_secret_hash);
  return current || previous;
}

const DUMMY_ROW = { secret_hash: sha256Hex('pbs-no-such-user'), previous_secret_hash: null, previous_expires_at: null };

const basicKey = (username: string, password: string) => `u:${username}\u0000${password}`;

export function deriveToken(secret: Buffer, tokenId: string): string {
  return ACCESS_TOKEN_PREFIX + createHmac('sha256', secret).update(tokenId).digest('base64url');
}

function toView(row: CredentialRow): CredentialView {
  return {
    id: row.id,
    partner_id: row.partner_id,
    kind: row.kind,
    label: row.label,
    public_id: row.public_id,
    created_at: toIso(row.created_at),
    rotated_at: row.rotated_at === null ? null : toIso(row.rotated_at),
    revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
    previous_secret_valid_until: row.previous_expires_at === null ? null : toIso(row.previous_expires_at),
  };
}
