import { describe, expect, it } from 'vitest';
import { searchAnswer, writeInteger, writeTenths } from '../../src/search/search-answer.js';

/** A tiny deterministic generator, so a failure names the same value on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('search answer bytes (written in place, not assembled from strings)', () => {
  it('writes distances exactly as String(Math.round(d * 10) / 10) does', () => {
    const next = random(7);
    const out = Buffer.alloc(64);
    const values = [0, 0.04, 0.05, 0.95, 1, 9.99, 10, 571.25, 571.35, 99_999.95, 20_015_086.8];
    for (let i = 0; i < 20_000; i++) values.push(next() * 10 ** Math.floor(next() * 8));
    for (const value of values) expect(out.toString('latin1', 0, writeTenths(out, 0, value))).toBe(String(Math.round(value * 10) / 10));
  });

  it('writes integers in decimal', () => {
    const out = Buffer.alloc(32);
    for (const value of [0, 7, 10, 99, 100, 12_345, 2 ** 31, Number.MAX_SAFE_INTEGER])
      expect(out.toString('latin1', 0, writeInteger(out, 0, value))).toBe(String(value));
  });

  it('puts the kept parts and the request values together as the JSON of the answer', () => {
    const parts = (name: string) => ({
      revision: 1,
      head: Buffer.from(`{"name":"${name}","distance":`),
      hoursOpen: Buffer.from(',"business_hours":[{"is_open_now":true}]'),
      hoursClosed: Buffer.from(',"business_hours":[{"is_open_now":false}]'),
    });
    const answer = searchAnswer(
      [
        { parts: parts('Café Zürich'), distance: 571.34, openNow: true, openings: [1080, 1095, 1425] },
        { parts: parts('Two'), distance: 12, openNow: false, openings: [] },
      ],
      1234,
      { latitude: 37.7749, longitude: -122.4194 },
    );
    expect(JSON.parse(answer.toString('utf8'))).toEqual({
      businesses: [
        {
          name: 'Café Zürich',
          distance: 571.3,
          business_hours: [{ is_open_now: true }],
          data: { reservation_openings: ['18:00', '18:15', '23:45'] },
        },
        { name: 'Two', distance: 12, business_hours: [{ is_open_now: false }], data: { reservation_openings: [] } },
      ],
      total: 1234,
      region: { center: { latitude: 37.7749, longitude: -122.4194 } },
    });
    const plain = searchAnswer([{ parts: parts('Three'), distance: 0.05, openNow: false, openings: undefined }], 1, {
      latitude: 1,
      longitude: 2,
    });
    expect(plain.toString('utf8')).toBe(
      '{"businesses":[{"name":"Three","distance":0.1,"business_hours":[{"is_open_now":false}]}],"total":1,"region":{"center":{"latitude":1,"longitude":2}}}',
    );
    expect(searchAnswer([], 0, { latitude: 1.5, longitude: -2 }).toString()).toBe(
      '{"businesses":[],"total":0,"region":{"center":{"latitude":1.5,"longitude":-2}}}',
    );
  });

  it('keeps each answer whole while later answers are cut from the same slab and from new ones', () => {
    const parts = {
      revision: 1,
      head: Buffer.from(`{"name":"${'x'.repeat(3000)}","distance":`),
      hoursOpen: Buffer.from(',"business_hours":[]'),
      hoursClosed: Buffer.from(',"business_hours":[]'),
    };
    // 20 answers of ~60 kB span several 256 kB slabs; each is read back after all were written.
    const answers = Array.from({ length: 20 }, (_, i) =>
      searchAnswer(
        Array.from({ length: 20 }, () => ({ parts, distance: i, openNow: false, openings: [i * 15] })),
        i,
        { latitude: i, longitude: -1 - i },
      ),
    );
    answers.forEach((answer, i) => {
      const body = JSON.parse(answer.toString('utf8'));
      expect(body.total).toBe(i);
      expect(body.region.center).toEqual({ latitude: i, longitude: -1 - i });
      expect(body.businesses).toHaveLength(20);
      expect(body.businesses.every((b: { distance: number }) => b.distance === i)).toBe(true);
    });
  });
});
