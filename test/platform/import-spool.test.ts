import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportSpool } from '../../src/platform/http/streamed-body.js';
import { admin, dialects, expectCode, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { processTarget, startServerProcess } from '../support/process.js';

const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/**
 * Issue 39: an import spools its body to a file; a server stopped during a 1,000,000-line import
 * (1.5 GB) left the file on disk, and nothing bounded what imports at once held there.
 */
describe('the import spool', () => {
  it('removes the files a stopped process left, and nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-spool-'));
    try {
      const spool = new ImportSpool(dir, 1024);
      fs.writeFileSync(path.join(dir, 'pbs-import-0123456789abcdef.jsonl'), 'x'.repeat(100));
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'kept');
      expect(await spool.clearLeftovers()).toBe(1);
      expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
      expect(await new ImportSpool(path.join(dir, 'missing'), 1024).clearLeftovers()).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(dialects)('imports beside a full spool on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_IMPORT_SPOOL_MAX_BYTES: '4096' } });
  });
  afterAll(() => h.close());

  it('answers 503 with Retry-After past the room imports share, and gives the room back', async () => {
    const lines = (n: number, from = 0) =>
      ndjson(Array.from({ length: n }, (_, i) => sampleBusiness({ id: `spooled-${dialect}-${from + i}`, name: `Spooled ${from + i}` })));
    const big = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: lines(30), contentType: 'application/x-ndjson' });
    expectCode(big, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(big.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total).toBe(0);
    for (let round = 0; round < 3; round++) {
      const small = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
        body: lines(2, round * 2),
        contentType: 'application/x-ndjson',
      });
      expect(small.status, small.text).toBe(200);
    }
    expect((await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total).toBe(6);
  });
});

describe.each(['sqlite', 'postgres'] as const)('a server starting on %s', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>>;
  beforeAll(async () => {
    target = await processTarget(dialect, 'spool');
  });
  afterAll(() => target.cleanup());

  it('removes import files a stopped process left spooled', async () => {
    const spool = path.join(target.env.PBS_DATA_DIR, 'spool');
    fs.mkdirSync(spool, { recursive: true, mode: 0o700 });
    const left = path.join(spool, 'pbs-import-fedcba9876543210.jsonl');
    fs.writeFileSync(left, '{"id":"half an import"}\n'.repeat(1000));
    const server = await startServerProcess({ ...target.env, PBS_SEED_DEMO: '0' });
    try {
      expect(fs.existsSync(left)).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
