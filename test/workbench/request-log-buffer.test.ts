import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/platform/http/request-recording.js';
import { decodeRecords, RecordBuffer } from '../../src/workbench/request-log-buffer.js';

const base: RequestRecord = {
  at: 1_900_000_000_123,
  interface: 'reservations',
  operation: 'POST /v3/bookings/{id}/holds',
  method: 'POST',
  url: '/v3/bookings/b1/holds?x=1',
  status: 201,
  durationMs: 1.25,
  requestId: 'req-1',
  idempotencyKey: undefined,
  partnerId: 'p1',
  credentialKind: 'api_key',
  credentialId: 'k1',
  clientAddress: '127.0.0.1',
  requestBody: undefined,
  responseBody: undefined,
  faultRule: undefined,
  retryAfter: '2',
  realAt: 1_900_000_000_456.25,
};

/** The request log's waiting entries as bytes (docs/request-log.md "How it is written"). */
describe('request log record buffer', () => {
  it('gives back every field of every record, in order, with bodies as text', () => {
    const buffer = new RecordBuffer();
    const slab = Buffer.from('xx{"hold_id":"h1","name":"Zoë"}yy');
    const records: RequestRecord[] = [
      { ...base, requestBody: { covers: 2, guest: { first_name: 'Ada' } }, responseBody: slab.subarray(2, slab.length - 2) },
      { ...base, idempotencyKey: 'k-ü', faultRule: 'rule-1', partnerId: undefined, requestBody: 'a,b\n1,2', responseBody: '{"ok":true}' },
      { ...base, requestBody: null, responseBody: '' },
    ];
    for (const r of records) buffer.append(r);
    expect(buffer.count).toBe(3);
    const taken = buffer.take();
    expect(buffer.count).toBe(0);
    expect(buffer.bytes).toBe(0);
    const decoded = decodeRecords(taken);
    expect(decoded).toEqual([
      { ...records[0], requestBody: '{"covers":2,"guest":{"first_name":"Ada"}}', responseBody: '{"hold_id":"h1","name":"Zoë"}' },
      { ...records[1], requestBody: 'a,b\n1,2', responseBody: '{"ok":true}' },
      { ...records[2], requestBody: undefined, responseBody: '' },
    ]);
  });

  it('spreads records over chunks, a record larger than a chunk in one of its own', () => {
    const buffer = new RecordBuffer();
    const large = 'x'.repeat(3 * 1024 * 1024);
    const small = JSON.stringify({ text: 'y'.repeat(10_000) });
    const records: RequestRecord[] = [];
    for (let i = 0; i < 400; i++) records.push({ ...base, requestId: `r${i}`, responseBody: i === 200 ? large : small });
    for (const r of records) buffer.append(r);
    const taken = buffer.take();
    expect(taken.buffers.length).toBeGreaterThan(2);
    expect(taken.count).toBe(400);
    const decoded = decodeRecords(taken);
    expect(decoded.map((d) => d.requestId)).toEqual(records.map((r) => r.requestId));
    expect(decoded[200].responseBody).toBe(large);
    expect(decoded[399].responseBody).toBe(small);
    // Taken again, nothing is left.
    expect(decodeRecords(buffer.take())).toEqual([]);
  });
});
