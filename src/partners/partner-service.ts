import { IMPORT_PROGRESS_EVERY } from '../platform/json-lines.js';
import { BatchLoader } from '../platform/batch-loader.js';
import { ConfirmedLinks, type KeptList } from './confirmed-links.js';
import type { ChangeFeed } from '../platform/change-feed.js';
import type { BusinessDirectory } from '../businesses/business-service.js';
import {
  partnerInterfaces,
  isPartnerInterface,
  type BusinessLinks,
  type LinkCheck,
  type PartnerInterface,
} from '../platform/auth/principal.js';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { toFlag, fromFlag, type Database, type DbOrTx } from '../platform/db/database.js';
import { noteAudit } from '../platform/audit/audit-trail.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { containsNul } from '../platform/input-guards.js';
import { parseCsv } from './csv.js';
import { PartnerStore, type InterfaceRow, type PartnerRow } from './partner-store.js';
import { recordOf } from '../platform/values.js';

export interface InterfaceView {
  enabled: boolean;
  per_second: number | null;
  per_day: number | null;
}

export interface PartnerView {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  created_at: string;
  updated_at: string;
  interfaces: Record<PartnerInterface, InterfaceView>;
}

export interface InterfaceChange {
  enabled?: boolean;
  per_second?: number | null;
  per_day?: number | null;
}

/** Runs in the transaction that removes a partner ↔ business link (e.g. to drop its subscriptions). */
export type UnlinkListener = (trx: DbOrTx, partnerId: string, businessId: string) => Promise<void>;

/** The change-feed topic of partner ↔ business links (key: the partner). */
const LINKS_TOPIC = 'links';
/** How long a confirmed link is kept when link changes reach every process through the change feed. */
const LINK_CONFIRMED_MS = 60_000;

/** What a lookup found for one id or alias: its business, if any, and whether the partner is linked to it. */
interface LinkOutcome {
  businessId: string | undefined;
  linked: boolean;
}

/** Partners, their interface grants and the businesses they may act for. */
export class PartnerService implements BusinessLinks {
  private readonly unlinkListeners: UnlinkListener[] = [];
  /**
   * Links confirmed recently: forgotten on any link or business change here, and when the change
   * feed tells of a link change elsewhere (without a feed: within `linkCacheMs`, PBS_AUTH_CACHE_MS).
   */
  private readonly confirmed = new ConfirmedLinks();
  /** Link lookups in progress, shared by the requests that ask at the same time. */
  private readonly linkLoads = new BatchLoader<LinkOutcome>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
    /** Called after any change that alters what a credential may do. */
    private readonly onAccessChanged: () => void = () => {},
    private readonly linkCacheMs = 0,
    /** Tells other processes of link changes, and this one of theirs. */
    private readonly changes?: ChangeFeed,
  ) {
    changes?.subscribe(LINKS_TOPIC, () => this.forgetLinks());
  }

  private get db() {
    return this.database.db;
  }

  private store(db: DbOrTx = this.db) {
    return new PartnerStore(db);
  }

  async create(input: { name: string; interfaces?: string[] }): Promise<PartnerView> {
    const enabled = input.interfaces ?? [];
    for (const name of enabled) {
      if (!isPartnerInterface(name)) throw unknownInterface(name);
    }
    const now = this.clock.now();
    const id = newId();
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      await store.insertPartner({ id, name: input.name, status: 'active', created_at: now, updated_at: now });
      for (const name of new Set(enabled)) {
        await store.upsertInterface({ partner_id: id, interface: name, enabled: 1, per_second: null, per_day: null, updated_at: now });
      }
    });
    return this.get(id);
  }

  async get(id: string): Promise<PartnerView> {
    const row = await this.store().findPartner(id);
    if (!row) throw apiError('NOT_FOUND', `Partner not found: ${id}`);
    return toView(row, await this.store().interfacesOf([id]));
  }

  /** Partners by id or by a part of their name (at most `limit`). */
  find(text: string, limit: number) {
    return this.store().findPartners(text, limit);
  }

  /** Whether the partner is active or disabled; undefined for an unknown one. */
  async statusOf(id: string): Promise<'active' | 'disabled' | undefined> {
    return (await this.store().findPartner(id))?.status;
  }

  async list(limit = 50, offset = 0) {
    const { total, rows } = await this.store().listPartners(limit, offset);
    const grants = await this.store().interfacesOf(rows.map((r) => r.id));
    return {
      total,
      limit,
      offset,
      partners: rows.map((r) =>
        toView(
          r,
          grants.filter((g) => g.partner_id === r.id),
        ),
      ),
    };
  }

  async setStatus(id: string, status: 'active' | 'disabled'): Promise<PartnerView> {
    await this.database.transact(async (trx) => {
      const result = await this.store(trx).setPartnerStatus(id, status, this.clock.now());
      if (Number(result.numUpdatedRows) === 0) throw apiError('NOT_FOUND', `Partner not found: ${id}`);
    });
    this.onAccessChanged();
    return this.get(id);
  }

  async setInterface(id: string, name: string, change: InterfaceChange): Promise<PartnerView> {
    if (!isPartnerInterface(name)) throw unknownInterface(name);
    const current = await this.get(id);
    const was = current.interfaces[name];
    const next = {
      enabled: change.enabled ?? was.enabled,
      per_second: change.per_second !== undefined ? change.per_second : was.per_second,
      per_day: change.per_day !== undefined ? change.per_day : was.per_day,
    };
    await this.database.transact(async (trx) => {
      noteAudit({ before: was, after: next });
      await this.store(trx).upsertInterface({
        partner_id: id,
        interface: name,
        ...next,
        enabled: toFlag(next.enabled),
        updated_at: this.clock.now(),
      });
    });
    this.onAccessChanged();
    return this.get(id);
  }

  async link(partnerId: string, businessIdOrAlias: string, comment?: string | null) {
    await this.get(partnerId);
    this.forgetLinks();
    const business = await this.businesses.requireRef(businessIdOrAlias);
    await this.database.transact(async (trx) => {
      await this.store(trx).linkBusiness({
        partner_id: partnerId,
        business_id: business.id,
        comment: comment ?? null,
        created_at: this.clock.now(),
      });
      await this.changes?.publish(trx, LINKS_TOPIC, partnerId);
    });
    return { partner_id: partnerId, business_id: business.id, comment: comment ?? null };
  }

  /** Another family's state that depends on a link goes with it, in the same transaction. */
  onUnlink(listener: UnlinkListener): void {
    this.unlinkListeners.push(listener);
  }

  async unlink(partnerId: string, businessIdOrAlias: string) {
    await this.get(partnerId);
    const resolved = (await this.businesses.resolveIds([businessIdOrAlias])).get(businessIdOrAlias);
    const business = resolved === undefined ? undefined : { id: resolved };
    const removed =
      business !== undefined &&
      (await this.database.transact(async (trx) => {
        const result = await this.store(trx).unlinkBusiness(partnerId, business.id);
        if (Number(result.numDeletedRows) === 0) return false;
        for (const listener of this.unlinkListeners) await listener(trx, partnerId, business.id);
        await this.changes?.publish(trx, LINKS_TOPIC, partnerId);
        return true;
      }));
    this.forgetLinks();
    if (!removed) throw apiError('NOT_FOUND', `Business ${businessIdOrAlias} is not linked to partner ${partnerId}`);
  }

  /** BusinessLinks: the business ids at once, from links confirmed lately (the kept copies). */
  knownBusinessIds(partnerId: string, idsOrAliases: readonly string[], listText?: string): string[] | undefined {
    if (idsOrAliases.length > 20 || this.linkCacheMs <= 0) return undefined;
    this.changes?.check();
    return this.confirmed.businessIdsOf(partnerId, idsOrAliases, Date.now(), listText);
  }

  /** BusinessLinks: a list sent as this text before, while all its links hold. */
  knownBusinessList(partnerId: string, listText: string): KeptList | undefined {
    if (this.linkCacheMs <= 0) return undefined;
    this.changes?.check();
    return this.confirmed.businessIdsOfList(partnerId, listText, Date.now());
  }

  /**
   * BusinessLinks: which of the given ids or aliases exist, and which of those the partner may act
   * for. Lists of up to 20 (every link guard) are answered from the links confirmed recently; the
   * others are looked up once however many requests ask for them at the same time.
   */
  async check(partnerId: string, idsOrAliases: readonly string[]): Promise<LinkCheck> {
    if (idsOrAliases.length > 20 || this.linkCacheMs <= 0) return this.checkNow(partnerId, idsOrAliases);
    this.changes?.check();
    const now = Date.now();
    const outcomes: Array<LinkOutcome | undefined> = idsOrAliases.map((id) => {
      const businessId = this.confirmed.businessIdOf(partnerId, id, now);
      return businessId === undefined ? undefined : { businessId, linked: true };
    });
    const missing = idsOrAliases.filter((_, i) => outcomes[i] === undefined);
    if (missing.length > 0) {
      const loaded = await this.linkLoads.load(
        missing,
        (id) => `${partnerId}\u0000${id}`,
        async (ids) => {
          const generation = this.confirmed.generation;
          const answer = await this.checkNow(partnerId, ids);
          // Forgotten when any link changes (here, or elsewhere through the change feed) and when a
          // business changes here, so kept longer than credentials; an alias that moves to another
          // business in another process maps to its old (linked) business for at most this long.
          const keepMs = this.changes ? Math.max(this.linkCacheMs, LINK_CONFIRMED_MS) : this.linkCacheMs;
          const at = Date.now();
          const unlinked = new Set(answer.unlinked);
          return ids.map((id) => {
            const businessId = answer.resolved.get(id);
            const linked = businessId !== undefined && !unlinked.has(id);
            // The kept copy of the business id, so every answer names a business by the same string.
            if (linked && generation === this.confirmed.generation)
              return { businessId: this.confirmed.confirm(partnerId, id, businessId, at + keepMs), linked };
            return { businessId, linked };
          });
        },
      );
      let j = 0;
      for (let i = 0; i < outcomes.length; i++) if (outcomes[i] === undefined) outcomes[i] = loaded[j++];
    }
    const resolved = new Map<string, string>();
    const unknown: string[] = [];
    const unlinked: string[] = [];
    idsOrAliases.forEach((id, i) => {
      const outcome = outcomes[i]!;
      if (outcome.businessId === undefined) unknown.push(id);
      else {
        resolved.set(id, outcome.businessId);
        if (!outcome.linked) unlinked.push(id);
      }
    });
    return { resolved, unknown, unlinked };
  }

  /** Forgets every confirmed link (a business changed: an alias may name another business now). */
  forgetLinks(): void {
    this.confirmed.forget();
  }

  private async checkNow(partnerId: string, idsOrAliases: readonly string[]): Promise<LinkCheck> {
    const resolved = await this.businesses.resolveIds([...idsOrAliases]);
    const linked = await this.store().linkedAmong(partnerId, [...new Set(resolved.values())]);
    const unknown: string[] = [];
    const unlinked: string[] = [];
    for (const id of idsOrAliases) {
      const businessId = resolved.get(id);
      if (businessId === undefined) unknown.push(id);
      else if (!linked.has(businessId)) unlinked.push(id);
    }
    return { resolved, unknown, unlinked };
  }

  /** Of `partnerIds`, the active partners with `iface` enabled (e.g. who may receive webhooks). */
  activeWith(db: DbOrTx, iface: PartnerInterface, partnerIds: readonly string[]): Promise<Set<string>> {
    return this.store(db).activeWith(iface, partnerIds);
  }

  /** Of `partnerIds`, those linked to the business (for fan-out to a business's partners). */
  partnersLinkedTo(db: DbOrTx, businessId: string, partnerIds: readonly string[]): Promise<Set<string>> {
    return this.store(db).partnersLinkedTo(businessId, partnerIds);
  }

  async listLinks(partnerId: string, limit = 100, offset = 0) {
    await this.get(partnerId);
    const { total, rows } = await this.store().listLinks(partnerId, limit, offset);
    const records = await this.businesses.records(rows.map((r) => r.business_id));
    return {
      total,
      limit,
      offset,
      businesses: rows.map((r) => ({
        business_id: r.business_id,
        alias: records.get(r.business_id)?.alias ?? null,
        name: records.get(r.business_id)?.name ?? null,
        comment: r.comment,
        linked_at: toIso(r.created_at),
      })),
    };
  }

  /** The full records of the businesses a partner may act for, in the order they were linked. */
  async linkedBusinesses(partnerId: string, limit: number, offset: number) {
    const { total, rows } = await this.store().listLinks(partnerId, limit, offset);
    const records = await this.businesses.records(rows.map((r) => r.business_id));
    return { total, businesses: rows.flatMap((r) => records.get(r.business_id) ?? []) };
  }

  /**
   * The onboarding CSV of the spec: `business id, optional comment` per line, header optional.
   * All or nothing: any unknown business id rejects the whole file.
   */
  /** `onProgress(done, total)`: the links written so far, inside the import's one transaction (the CLI's bar). */
  async importLinksCsv(partnerId: string, csv: string, onProgress?: (done: number, total: number) => void) {
    await this.get(partnerId);
    if (containsNul(csv)) throw apiError('VALIDATION_ERROR', 'The CSV contains a NUL character.');
    const rows = parseCsv(csv).filter((r) => r.length > 0 && r.some((cell) => cell.trim() !== ''));
    if (rows.length > 0 && /^(business[_ ]?id|biz[_ ]?id)$/i.test(rows[0][0].trim())) rows.shift();
    if (rows.length === 0) throw apiError('VALIDATION_ERROR', 'The CSV holds no business ids.');
    const ids = await this.businesses.resolveIds(rows.map(([rawId]) => rawId.trim()));
    const resolved: Array<{ id: string; comment: string | null }> = [];
    const unknown: string[] = [];
    for (const [rawId, ...rest] of rows) {
      const id = rawId.trim();
      const businessId = ids.get(id);
      if (businessId === undefined) unknown.push(id);
      else resolved.push({ id: businessId, comment: rest.join(',').trim() || null });
    }
    if (unknown.length > 0) {
      throw apiError('VALIDATION_ERROR', `Unknown business ids: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''}`, {
        field: 'business_id',
      });
    }
    const now = this.clock.now();
    this.forgetLinks();
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      for (const [i, r] of resolved.entries()) {
        await store.linkBusiness({ partner_id: partnerId, business_id: r.id, comment: r.comment, created_at: now });
        if ((i + 1) % IMPORT_PROGRESS_EVERY === 0 || i + 1 === resolved.length) onProgress?.(i + 1, resolved.length);
      }
      await this.changes?.publish(trx, LINKS_TOPIC, partnerId);
    });
    return { linked: resolved.length };
  }
}

function unknownInterface(name: string) {
  return apiError('VALIDATION_ERROR', `Unknown interface "${name}"; one of ${partnerInterfaces.join(', ')}`, { field: 'interface' });
}

function toView(row: PartnerRow, grants: InterfaceRow[]): PartnerView {
  const interfaces = recordOf(partnerInterfaces, (name): InterfaceView => {
    const g = grants.find((x) => x.interface === name);
    return { enabled: fromFlag(g?.enabled), per_second: g?.per_second ?? null, per_day: g?.per_day ?? null };
  });
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    interfaces,
  };
}
