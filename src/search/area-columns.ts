import type { Catalog } from '../catalog/catalog.js';
import { wordsFor } from '../platform/bitset.js';
import { dayContext, DAY_SLOTS, type DayContext } from '../reservations/availability.js';
import type { OccupancyIndex } from '../reservations/occupancy.js';

/** Rows (restaurant × day × party size) kept in all areas' columns: 32 bytes each. */
const MAX_COLUMN_ROWS = 4_000_000;

/**
 * Which restaurants of an area have which slots open on one date for one party size: a row per
 * member (its day's 96 slots, from the occupancy index) and, for answering many members at once,
 * the same bits slot by slot over the members (`slots[q]`: a bitset of the members open at slot q).
 * Kept current by recomputing only the rows whose bookings changed, whose holds lapsed, or
 * whose restaurant changed. Positions are the area index's (best-match order).
 */
export class AreaColumn {
  /** Per member position: the day's open slots (three 32-bit words) and until when they hold. */
  private readonly masks: Uint32Array;
  private readonly validUntil: Float64Array;
  private minValidUntil = Infinity;
  /** DAY_SLOTS bitsets over the member positions, one after the other. */
  readonly slots: Uint32Array;
  /** The occupancy index's change counter the rows reflect. */
  private seq: number;
  /** Positions to recompute before the next use (their restaurant changed). */
  private dirty: number[] = [];
  private readonly words: number;

  constructor(
    readonly date: string,
    readonly covers: number,
    private readonly members: Int32Array,
    private readonly positions: ReadonlyMap<number, number>,
    private readonly catalog: Catalog,
    private readonly occupancy: OccupancyIndex,
    /** Removes the column from its area (when the budget drops it). */
    readonly forget: () => void,
  ) {
    const n = members.length;
    this.words = wordsFor(n);
    this.masks = new Uint32Array(3 * n);
    this.validUntil = new Float64Array(n);
    this.slots = new Uint32Array(DAY_SLOTS * this.words);
    this.seq = occupancy.seq;
  }

  /** Computes every row, at `now`. */
  fill(now: number): void {
    const days = new Map<string, DayContext>();
    for (let p = 0; p < this.members.length; p++) this.computeRow(p, now, days);
    this.refreshMinimum();
  }

  /** A member changed: its row is recomputed before the next use. */
  markDirty(position: number): void {
    this.dirty.push(position);
  }

  openSlots(position: number): { open0: number; open1: number; open2: number } {
    return { open0: this.masks[3 * position], open1: this.masks[3 * position + 1], open2: this.masks[3 * position + 2] };
  }

  /** Recomputes the rows whose bookings changed, whose restaurant changed, or whose holds lapsed by `now`. */
  refresh(now: number): void {
    const days = new Map<string, DayContext>();
    if (this.seq !== this.occupancy.seq) {
      const changed = this.occupancy.changedSince(this.seq);
      if (changed === undefined) for (let p = 0; p < this.members.length; p++) this.computeRow(p, now, days);
      else {
        for (const businessId of changed) {
          const entry = this.catalog.lookup(businessId);
          const p = entry ? this.positions.get(entry.ordinal) : undefined;
          if (p !== undefined) this.computeRow(p, now, days);
        }
      }
      this.seq = this.occupancy.seq;
      this.refreshMinimum();
    }
    if (this.dirty.length > 0) {
      for (const p of this.dirty) this.computeRow(p, now, days);
      this.dirty = [];
      this.refreshMinimum();
    }
    if (now >= this.minValidUntil) {
      // Holds lapsed since: their restaurants' slots may be free again.
      for (let p = 0; p < this.members.length; p++) if (this.validUntil[p] <= now) this.computeRow(p, now, days);
      this.refreshMinimum();
    }
  }

  private refreshMinimum(): void {
    let min = Infinity;
    for (const v of this.validUntil) if (v < min) min = v;
    this.minValidUntil = min;
  }

  /** Recomputes member `p`'s open slots and flips its bits where they changed. */
  private computeRow(p: number, now: number, days: Map<string, DayContext>): void {
    const entry = this.catalog.businesses[this.members[p]];
    let m0 = 0;
    let m1 = 0;
    let m2 = 0;
    let until = Infinity;
    if (entry.reservation) {
      let day = days.get(entry.timezone);
      if (!day) days.set(entry.timezone, (day = dayContext(now, entry.timezone, this.date)));
      const slots = this.occupancy.computeDay(entry.reservation, day, this.covers);
      m0 = slots.open0;
      m1 = slots.open1;
      m2 = slots.open2;
      until = slots.validUntil;
    }
    const masks = this.masks;
    const flips = [masks[3 * p] ^ m0, masks[3 * p + 1] ^ m1, masks[3 * p + 2] ^ m2];
    masks[3 * p] = m0;
    masks[3 * p + 1] = m1;
    masks[3 * p + 2] = m2;
    this.validUntil[p] = until;
    const word = p >>> 5;
    const bit = 1 << (p & 31);
    for (let w = 0; w < 3; w++) {
      let changed = flips[w] >>> 0;
      while (changed !== 0) {
        const low = changed & -changed;
        const q = (w << 5) + (31 - Math.clz32(low));
        this.slots[q * this.words + word] ^= bit;
        changed ^= low;
      }
    }
  }
}

/**
 * A bound on the availability columns kept over all areas (MAX_COLUMN_ROWS rows): the least
 * recently used go first. Each is rebuilt on its next use.
 */
export class ColumnBudget {
  private readonly lru = new Map<AreaColumn, number>();
  private rows = 0;

  constructor(private readonly maxRows = MAX_COLUMN_ROWS) {}

  add(column: AreaColumn, rows: number): void {
    this.lru.set(column, rows);
    this.rows += rows;
    for (const oldest of this.lru.keys()) {
      if (this.rows <= this.maxRows || oldest === column) break;
      this.drop(oldest);
      oldest.forget();
    }
  }

  touch(column: AreaColumn): void {
    const n = this.lru.get(column);
    if (n === undefined) return;
    this.lru.delete(column);
    this.lru.set(column, n);
  }

  drop(column: AreaColumn): void {
    const n = this.lru.get(column);
    if (n === undefined) return;
    this.lru.delete(column);
    this.rows -= n;
  }
}
