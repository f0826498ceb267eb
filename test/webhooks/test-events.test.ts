import { describe, expect, it } from 'vitest';
import { testUpdate } from '../../src/webhooks/test-events.js';
import { webhookEventTypes } from '../../src/webhooks/webhook-tables.js';

describe('test events', () => {
  it('has a realistic update for every type a partner can receive, marked as a test', () => {
    for (const type of webhookEventTypes) {
      const update = testUpdate(type, 'biz-1', Date.parse('2031-05-05T16:00:00Z'));
      expect(update.event_type, type).toBe(type);
      expect(update.test, type).toBe(true);
      expect(Object.keys(update).length, type).toBeGreaterThanOrEqual(3);
    }
  });
});
