import { ByteWriter } from '../platform/byte-writer.js';
import { formatHHMM } from '../platform/local-time.js';
import { DAY_SLOTS, isOpen, type DaySlots } from './availability.js';
import { SLOT_MINUTES } from './inventory.js';
import { BoundedMap } from '../platform/bounded-map.js';

/**
 * Every slot of a day as an open slot that needs no card, in the openings format and separated
 * by commas: the same bytes for every restaurant, so a run of consecutive open slots is one copy
 * of a part of it (slot q is the bytes [SLOT_START[q], SLOT_END[q]) of ALL_SLOTS).
 */
const ALL_SLOTS_TEXT = Array.from(
  { length: DAY_SLOTS },
  (_, q) => `{"time":"${formatHHMM(q * SLOT_MINUTES)}","credit_card_required":false}`,
);
const ALL_SLOTS = Buffer.from(ALL_SLOTS_TEXT.join(','));
const SLOT_START = new Uint32Array(DAY_SLOTS);
const SLOT_END = new Uint32Array(DAY_SLOTS);
for (let q = 0, at = 0; q < DAY_SLOTS; at += ALL_SLOTS_TEXT[q].length + 1, q++) {
  SLOT_START[q] = at;
  SLOT_END[q] = at + ALL_SLOTS_TEXT[q].length;
}
/** The run of slots first..last (index first × DAY_SLOTS + last) as a view of ALL_SLOTS, made on first use. */
const runs: Array<Buffer | undefined> = new Array(DAY_SLOTS * DAY_SLOTS);
const run = (first: number, last: number) => (runs[first * DAY_SLOTS + last] ??= ALL_SLOTS.subarray(SLOT_START[first], SLOT_END[last]));

const [OPENINGS_START, COMMA, DAY_END, TIMES_END, OBJECT_END] = ['{"reservation_times":[', ',', ']}', ']', '}'].map((text) =>
  Buffer.from(text),
);

/** By date: `{"date":"…","times":[` to open a body's first day, and with a comma before it for the others. */
const dayHeads = new BoundedMap<string, { first: Buffer; next: Buffer }>(10_000);
function dayHead(date: string, first: boolean): Buffer {
  let head = dayHeads.get(date);
  if (!head) {
    const next = Buffer.from(`,{"date":"${date}","times":[`, 'latin1');
    dayHeads.set(date, (head = { first: next.subarray(1), next }));
  }
  return first ? head.first : head.next;
}

/**
 * Writes openings bodies (`{"reservation_times": [...], "covers_range": {...}}`) one at a time:
 * `begin`, a `day` per date, then `end`. Synchronous use only.
 */
export class OpeningsJson {
  private readonly writer = new ByteWriter();
  private days = 0;

  begin(): this {
    this.writer.reset().bytes(OPENINGS_START);
    this.days = 0;
    return this;
  }

  /**
   * A date and its open slots among [first, end). `cardSlot` renders a slot that needs a card
   * (it links to a page of its own); without it, slots need none.
   */
  day(date: string, slots: DaySlots, first: number, end: number, cardSlot?: (slot: number) => string): this {
    const w = this.writer;
    w.bytes(dayHead(date, this.days++ === 0));
    let comma = false;
    for (let q = first; q < end;) {
      if (!isOpen(slots, q)) {
        q++;
        continue;
      }
      let last = q;
      while (last + 1 < end && isOpen(slots, last + 1)) last++;
      if (comma) w.bytes(COMMA);
      if (cardSlot) {
        for (let s = q; s <= last; s++) {
          if (s > q) w.bytes(COMMA);
          w.utf8(cardSlot(s));
        }
      } else {
        w.bytes(run(q, last));
      }
      comma = true;
      q = last + 1;
    }
    w.bytes(DAY_END);
    return this;
  }

  /** The body, with `covers_range` when given. */
  end(coversRange?: { min: number; max: number }): Buffer {
    const w = this.writer.bytes(TIMES_END);
    if (coversRange) w.ascii(`,"covers_range":{"min_party_size":${coversRange.min},"max_party_size":${coversRange.max}}`);
    return w.bytes(OBJECT_END).finish();
  }
}
