import { describe, expect, it } from 'vitest';
import { addDays, localDay, localParts, localToUtc, parseDate, parseTime, weekday } from '../../src/platform/local-time.js';

describe('local time', () => {
  it('converts local dates and times to UTC across DST changes', () => {
    expect(new Date(localToUtc('2031-05-07', 19 * 60, 'America/Los_Angeles')).toISOString()).toBe('2031-05-08T02:00:00.000Z');
    expect(new Date(localToUtc('2031-12-07', 19 * 60, 'America/Los_Angeles')).toISOString()).toBe('2031-12-08T03:00:00.000Z');
    expect(new Date(localToUtc('2031-05-07', 19 * 60, 'America/Toronto')).toISOString()).toBe('2031-05-07T23:00:00.000Z');
    // 2031-03-09 is the spring-forward day in North America: 01:30 and 03:30 are an hour + 2 apart.
    const before = localToUtc('2031-03-09', 90, 'America/Los_Angeles');
    const after = localToUtc('2031-03-09', 210, 'America/Los_Angeles');
    expect(after - before).toBe(3600_000);
    expect(localDay('2031-03-09', 'America/Los_Angeles')(210)).toBe(after);
    expect(localDay('2031-05-07', 'America/Los_Angeles')(19 * 60)).toBe(localToUtc('2031-05-07', 19 * 60, 'America/Los_Angeles'));
    expect(localParts(Date.parse('2031-05-08T02:00:00Z'), 'America/Los_Angeles')).toEqual({
      date: '2031-05-07',
      minutes: 19 * 60,
      seconds: 0,
    });
  });

  it('parses strict dates and times and knows weekdays (Monday = 0)', () => {
    expect(parseDate('2031-02-29')).toBeUndefined();
    expect(parseDate('2032-02-29')).toBe('2032-02-29');
    expect(parseTime('24:00')).toBeUndefined();
    expect(parseTime('07:05')).toBe(425);
    expect(weekday('2031-05-05')).toBe(0);
    expect(addDays('2031-12-31', 1)).toBe('2032-01-01');
  });
});
