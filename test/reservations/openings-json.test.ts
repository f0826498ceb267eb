import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/platform/byte-writer.js';
import { formatHHMM } from '../../src/platform/local-time.js';
import { DAY_SLOTS, type DaySlots } from '../../src/reservations/availability.js';
import { OpeningsJson } from '../../src/reservations/openings-json.js';
import { seededRandom } from '../../src/demo/demo-dataset.js';

function slotsOf(open: boolean[]): DaySlots {
  const words = [0, 0, 0];
  open.forEach((isOpen, q) => {
    if (isOpen) words[q >> 5] |= 1 << (q & 31);
  });
  return { open0: words[0], open1: words[1], open2: words[2], creditCardRequired: false, computedAt: 0, validUntil: Infinity };
}

describe('openings bodies', () => {
  it('match JSON.stringify of the same days, for any pattern of open slots, windows and card rules', () => {
    const random = seededRandom(7);
    const writer = new OpeningsJson();
    const bodies: Array<{ body: Buffer; expected: string }> = [];
    for (let n = 0; n < 500; n++) {
      const days = Array.from({ length: 4 }, (_, i) => {
        const density = random();
        const open = Array.from({ length: DAY_SLOTS }, () => random() < density);
        const first = Math.floor(random() * DAY_SLOTS);
        const end = first + Math.floor(random() * (DAY_SLOTS - first + 1));
        return { date: `2031-05-${String(10 + i).padStart(2, '0')}`, open, first, end, card: random() < 0.3 };
      });
      const range = random() < 0.5 ? { min: 1, max: Math.ceil(random() * 20) } : undefined;
      writer.begin();
      for (const d of days) {
        const cardSlot = d.card
          ? (q: number) => JSON.stringify({ time: formatHHMM(q * 15), credit_card_required: true, url: `https://x.test/é/${d.date}/${q}` })
          : undefined;
        writer.day(d.date, slotsOf(d.open), d.first, d.end, cardSlot);
      }
      const expected = JSON.stringify({
        reservation_times: days.map((d) => ({
          date: d.date,
          times: d.open
            .map((isOpen, q) => ({ isOpen, q }))
            .filter(({ isOpen, q }) => isOpen && q >= d.first && q < d.end)
            .map(({ q }) =>
              d.card
                ? { time: formatHHMM(q * 15), credit_card_required: true, url: `https://x.test/é/${d.date}/${q}` }
                : { time: formatHHMM(q * 15), credit_card_required: false },
            ),
        })),
        ...(range ? { covers_range: { min_party_size: range.min, max_party_size: range.max } } : {}),
      });
      bodies.push({ body: writer.end(range), expected });
    }
    // Checked after all were written: a later body never overwrites an earlier one.
    for (const { body, expected } of bodies) expect(body.toString('utf8')).toBe(expected);
  });
});

describe('ByteWriter', () => {
  it('keeps every body it handed out intact across slabs, including bodies larger than a slab', () => {
    const writer = new ByteWriter(64);
    const out: Array<[Buffer, string]> = [];
    for (let n = 0; n < 200; n++) {
      const text = `body ${n}:` + 'x'.repeat(n % 3 === 0 ? n * 2 : n % 17);
      writer
        .reset()
        .ascii(text.slice(0, 5))
        .bytes(Buffer.from(text.slice(5, 9)))
        .utf8(text.slice(9));
      out.push([writer.finish(), text]);
    }
    for (const [body, text] of out) expect(body.toString()).toBe(text);
  });

  it('drops an unfinished body on reset', () => {
    const writer = new ByteWriter(32);
    writer.reset().ascii('abandoned');
    expect(writer.reset().ascii('kept').finish().toString()).toBe('kept');
  });
});
