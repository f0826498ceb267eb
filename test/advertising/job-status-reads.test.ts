import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobStatus, type JobReceipt } from '../../src/advertising/advertising-receipts.js';
import type { AdvertisingStore } from '../../src/advertising/advertising-store.js';
import { call, dialects, type Harness, type TestPartner } from '../support/harness.js';
import { advertisingHelpers, startAdvertising } from './fixture.js';

/** Job status polls that find no verdict kept share one read of the job (ADR 0007, coalesced misses). */
describe.each(dialects)('job status reads on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let other: TestPartner;

  beforeAll(async () => {
    ({ h, p, other } = await startAdvertising(dialect));
  });
  afterAll(() => h.close());

  const { business, as, process } = advertisingHelpers(() => ({ h, p, other }), { name: 'Polled', specialties: 'Tacos' });

  /** A JobStatus over the server's own store, counting the job reads that reach the database. */
  const counted = () => {
    let reads = 0;
    const store = () => {
      const real = h.pbs.services.advertising.jobs.store();
      const counting: AdvertisingStore = Object.create(real);
      counting.findJob = (id: string) => {
        reads++;
        return real.findJob(id);
      };
      return counting;
    };
    return { status: new JobStatus(store), reads: () => reads };
  };
  // A read may answer at once or in a promise: both settle to the receipt.
  const all = (receipts: Array<JobReceipt | Promise<JobReceipt>>) => Promise.all(receipts.map(async (r) => r));

  it('reads a job once however many polls miss at the same time, and again after this process completes it', async () => {
    const created = await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${await business()}&program_name=BP`, as(p));
    expect(created.status, created.text).toBe(200);
    const jobId: string = created.body.job_id;
    const { status, reads } = counted();

    const polls = await all(Array.from({ length: 20 }, () => status.read(p.partner.id, jobId)));
    expect(reads()).toBe(1);
    expect(new Set(polls.map((r) => r.statusCode))).toEqual(new Set([202]));
    expect(new Set(polls.map((r) => r.body.toString()))).toHaveProperty('size', 1);

    // Another partner's misses join the same read and are refused all the same.
    status.forget(jobId);
    const mixed = [status.read(p.partner.id, jobId), status.read(other.partner.id, jobId)];
    await expect(mixed[1]).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await mixed[0]).statusCode).toBe(202);
    expect(reads()).toBe(2);

    // A read begun before this process commits the completion is not joined by later polls, and
    // its PROCESSING is not kept.
    status.forget(jobId);
    const early = status.read(p.partner.id, jobId);
    status.forget(jobId);
    await process();
    const later = await status.read(p.partner.id, jobId);
    expect((await early).statusCode).toBe(202);
    expect(later.statusCode).toBe(200);
    expect(reads()).toBe(4);
  });
});
