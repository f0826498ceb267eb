import type { ChangeFeed } from '../platform/change-feed.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/database.js';
import { daySlots, type DayContext, type DaySlots } from './availability.js';
import type { ReservationSettings } from './inventory.js';
import type { InventoryTable } from './inventory-tables.js';
import { ReservationStore, type Booking } from './reservation-store.js';

/** Topic of booking changes on the change feed; the key is the business id. */
export const BOOKINGS_TOPIC = 'bookings';
/** Bookings that ended this long before now no longer matter to any opening. */
const PAST_HORIZON_MS = 24 * 3600_000;
/** Changes remembered for `changedSince` (readers that fall further behind start over). */
const CHANGE_LOG_SIZE = 4_096;

interface BusinessBookings {
  byId: Map<string, Booking>;
  /** By start time; rebuilt on first read after a change. */
  sorted: Booking[] | undefined;
  /** Changes whenever the bookings do; days computed from an older version are recomputed. */
  version: number;
}

interface Change {
  businessId: string;
  add: Booking[];
  remove: string[];
}

/** A computed day and when it was computed: one object, so a lookup follows few pointers. */
interface RememberedDay extends DaySlots {
  /** The index's change counter when computed: unchanged means nothing changed anywhere. */
  seq: number;
  /** The restaurant's bookings version when computed. */
  version: number;
}

/** Computed days of one restaurant's inventory, by `memoKey` (date and party size). */
export interface RestaurantMemo {
  days: Map<number, RememberedDay>;
}

/** Party sizes stay below this (the inventory caps them far lower). */
const COVERS_KEY_SPAN = 1024;
const memoKey = (day: DayContext, covers: number) => day.dayNumber * COVERS_KEY_SPAN + covers;

/** A restaurant's reservation model as the catalogue holds it (one object per catalogue load). */
export interface RestaurantInventory {
  businessId: string;
  settings: ReservationSettings;
  tables: InventoryTable[];
  /** Days computed from this inventory: kept on the object, so a lookup costs no hashing of keys. */
  memo?: RestaurantMemo;
}

/**
 * Live holds and reservations of every restaurant, in memory, so openings and search read
 * availability without a query, and each day's open slots are computed once per change.
 * Kept current by this process's own commits (`apply`, after each commit) and by the change
 * feed for other processes' commits. It only ever serves reads: a hold or reservation decides
 * in its database transaction, with the restaurant locked, so a stale view can at worst offer a
 * slot that the hold then refuses.
 */
export class OccupancyIndex {
  private businesses = new Map<string, BusinessBookings>();
  /** Version of businesses without an entry; moves on every full load. */
  private emptyVersion = 0;
  private versionSeq = 0;
  /** Businesses changed, by the version each change got; reset by full loads. */
  private changeLog: Array<{ version: number; businessId: string }> = [];
  private changeLogFrom = 0;
  private complete = false;
  private readonly stale = new Set<string>();
  private loading: Promise<void> | undefined;
  /** Changes applied while a load is in flight, replayed onto its result (add and remove are idempotent). */
  private replay: Change[] | undefined;
  /** Inventories holding computed days, oldest memo first, and the days they hold in all. */
  private memoOwners: RestaurantInventory[] = [];
  private rememberedDays = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly feed: ChangeFeed,
    /** Computed days kept in all (dates × party sizes × restaurants); the oldest restaurants' go first. */
    private readonly maxRememberedDays: number,
  ) {
    feed.subscribe(BOOKINGS_TOPIC, (businessId) => {
      if (businessId === undefined) this.complete = false;
      else this.stale.add(businessId);
    });
    // A sandbox clock moved back may need bookings older than the loaded horizon.
    clock.onChange(() => {
      this.complete = false;
    });
  }

  /** Brings the index up to date with other processes' commits; cheap when there are none. */
  async sync(): Promise<void> {
    if (this.synced()) return;
    if (this.loading) await this.loading;
    if (this.complete && this.stale.size === 0) return;
    // One more round at most: a reader never waits on an endless stream of foreign changes.
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    await this.loading;
  }

  /** True when the index reflects every known change, so `sync` need not be awaited. */
  synced(): boolean {
    this.feed.check();
    return !this.loading && this.complete && this.stale.size === 0;
  }

  /** Moves whenever any restaurant's bookings change. */
  get seq(): number {
    return this.versionSeq;
  }

  /**
   * Businesses whose bookings changed after `seq`, or undefined when that is no longer known
   * (a full reload, or more changes than are remembered): then everything may have changed.
   */
  changedSince(seq: number): string[] | undefined {
    if (seq < this.changeLogFrom) return undefined;
    const out: string[] = [];
    for (let i = this.changeLog.length - 1; i >= 0 && this.changeLog[i].version > seq; i--) out.push(this.changeLog[i].businessId);
    return out;
  }

  /** Records a change this process committed (call after the commit). */
  apply(businessId: string, change: { add?: Booking[]; remove?: string[] }): void {
    const full: Change = { businessId, add: change.add ?? [], remove: change.remove ?? [] };
    this.replay?.push(full);
    this.applyTo(this.businesses, full);
  }

  /**
   * The open slots of one local day for a party, as computed from the current bookings at
   * `day.now`; the caller applies the horizon, notice period and time window. `sync()` first.
   */
  day(restaurant: RestaurantInventory, day: DayContext, covers: number): DaySlots {
    const now = day.now;
    let memo = restaurant.memo;
    if (!memo) {
      memo = restaurant.memo = { days: new Map() };
      this.memoOwners.push(restaurant);
    }
    const key = memoKey(day, covers);
    const hit = memo.days.get(key);
    if (hit && hit.computedAt <= now && now < hit.validUntil) {
      // Fast path first: a search asks this for every restaurant of a metro.
      if (hit.seq === this.versionSeq) return hit;
      if (hit.version === this.versionOf(restaurant.businessId)) {
        hit.seq = this.versionSeq;
        return hit;
      }
    }
    const entry = this.businesses.get(restaurant.businessId);
    const computed = daySlots(day, restaurant.settings, restaurant.tables, entry ? this.sorted(entry, now) : [], covers, now);
    const remembered: RememberedDay = {
      open0: computed.open0,
      open1: computed.open1,
      open2: computed.open2,
      creditCardRequired: computed.creditCardRequired,
      computedAt: computed.computedAt,
      validUntil: computed.validUntil,
      seq: this.versionSeq,
      version: entry?.version ?? this.emptyVersion,
    };
    memo.days.set(key, remembered);
    if (!hit && ++this.rememberedDays > this.maxRememberedDays) this.forgetOldestDays();
    return remembered;
  }

  /**
   * The same as `day`, computed afresh and not remembered: for readers that keep the answer
   * themselves (search keeps one per restaurant of an area), so they do not push out the days
   * openings reuse.
   */
  computeDay(restaurant: RestaurantInventory, day: DayContext, covers: number): DaySlots {
    const entry = this.businesses.get(restaurant.businessId);
    return daySlots(day, restaurant.settings, restaurant.tables, entry ? this.sorted(entry, day.now) : [], covers, day.now);
  }

  /** Drops the computed days of the restaurants that started remembering first, down to three quarters of the bound. */
  private forgetOldestDays(): void {
    let dropped = 0;
    while (dropped < this.memoOwners.length && this.rememberedDays > this.maxRememberedDays * 0.75) {
      const owner = this.memoOwners[dropped++];
      this.rememberedDays -= owner.memo?.days.size ?? 0;
      owner.memo = undefined;
    }
    this.memoOwners = this.memoOwners.slice(dropped);
  }

  /** Computed days held now (for tests and metrics). */
  get daysRemembered(): number {
    return this.rememberedDays;
  }

  private versionOf(businessId: string): number {
    return this.businesses.get(businessId)?.version ?? this.emptyVersion;
  }

  private sorted(entry: BusinessBookings, now: number): Booking[] {
    if (!entry.sorted) {
      const keep: Booking[] = [];
      for (const [id, b] of entry.byId) {
        // Lapsed holds and long-past bookings are dropped for good (a clock moved back reloads).
        if (b.expires_at <= now || b.end_at < now - PAST_HORIZON_MS) entry.byId.delete(id);
        else keep.push(b);
      }
      entry.sorted = keep.sort((a, b) => a.start_at - b.start_at);
    }
    return entry.sorted;
  }

  private applyTo(businesses: Map<string, BusinessBookings>, change: Change): void {
    let entry = businesses.get(change.businessId);
    if (!entry) {
      entry = { byId: new Map(), sorted: undefined, version: 0 };
      businesses.set(change.businessId, entry);
    }
    for (const id of change.remove) entry.byId.delete(id);
    for (const b of change.add) entry.byId.set(b.id, b);
    entry.sorted = undefined;
    entry.version = ++this.versionSeq;
    this.logChange(entry.version, change.businessId);
  }

  private logChange(version: number, businessId: string): void {
    this.changeLog.push({ version, businessId });
    if (this.changeLog.length > CHANGE_LOG_SIZE) {
      const dropped = this.changeLog.splice(0, CHANGE_LOG_SIZE / 2);
      this.changeLogFrom = dropped[dropped.length - 1].version;
    }
  }

  private async load(): Promise<void> {
    const full = !this.complete;
    const keys = full ? [] : [...this.stale];
    this.stale.clear();
    this.complete = true; // a change signalled during the load clears it again
    this.replay = [];
    const since = this.clock.now() - PAST_HORIZON_MS;
    try {
      const store = new ReservationStore(this.database.db, this.database.dialect);
      const rows = full ? await store.liveBookings(since) : await store.liveBookingsOf(keys, since);
      const businesses = full ? new Map<string, BusinessBookings>() : this.businesses;
      if (full) {
        this.emptyVersion = ++this.versionSeq;
        this.changeLog = [];
        this.changeLogFrom = this.emptyVersion;
      }
      for (const key of keys) {
        const version = ++this.versionSeq;
        businesses.set(key, { byId: new Map(), sorted: undefined, version });
        this.logChange(version, key);
      }
      const byBusiness = new Map<string, Booking[]>();
      for (const row of rows) {
        const list = byBusiness.get(row.business_id);
        if (list) list.push(row);
        else byBusiness.set(row.business_id, [row]);
      }
      for (const [businessId, add] of byBusiness) this.applyTo(businesses, { businessId, add, remove: [] });
      for (const change of this.replay) this.applyTo(businesses, change);
      this.businesses = businesses;
    } catch (error) {
      if (full) this.complete = false;
      for (const key of keys) this.stale.add(key);
      throw error;
    } finally {
      this.replay = undefined;
    }
  }
}
