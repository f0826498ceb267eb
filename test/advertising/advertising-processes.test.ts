import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRAM_TYPES } from '../../src/advertising/advertising-tables.js';
import { admin, call, createPartner, sampleBusiness } from '../support/harness.js';
import { startProcessPair, type ProcessPair, type ServerProcess } from '../support/process.js';
import { eventually } from '../support/wait.js';

/** Eight types a business can hold together (EP excludes BP; PORTFOLIO left out to make 8). */
const TYPES = PROGRAM_TYPES.filter((t) => t !== 'EP' && t !== 'PORTFOLIO');
const BUSINESSES = 125;
/** 125 businesses × 8 program types: 1,000 creations that can all succeed. */
const JOBS = BUSINESSES * TYPES.length;

/** Issue 14: two pbs processes on one PostgreSQL database apply 1,000 advertising jobs, each exactly once. */
describe('advertising jobs across two processes on postgres', () => {
  let pair: ProcessPair | undefined;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    pair = await startProcessPair('ads', { PBS_AD_JOB_DELAY_MS: '0', PBS_TASKS_POLL_MS: '20' });
    servers = pair.servers;
  });
  afterAll(() => pair?.close());

  it(`applies ${JOBS} jobs submitted to both processes exactly once`, async () => {
    const base = servers[0].url;
    const partner = await createPartner(base, ['advertising'], 'Busy Reseller');
    const lines = Array.from({ length: BUSINESSES }, (_, i) =>
      JSON.stringify(sampleBusiness({ id: `ads-biz-${i}`, name: `Ads ${i}`, specialties: 'Noodles' })),
    );
    expect(
      (
        await admin(base, 'POST', '/admin/v1/businesses/import', {
          body: lines.join('\n'),
          headers: { 'content-type': 'application/x-ndjson' },
        })
      ).status,
    ).toBe(200);
    const csv = Array.from({ length: BUSINESSES }, (_, i) => `ads-biz-${i}`).join('\n');
    expect(
      (
        await admin(base, 'POST', `/admin/v1/partners/${partner.partner.id}/businesses/import`, {
          body: csv,
          headers: { 'content-type': 'text/csv' },
        })
      ).status,
    ).toBe(200);

    const basic = { basic: [partner.basic.username, partner.basic.password] as [string, string] };
    const params = (i: number) => {
      const type = TYPES[i % TYPES.length];
      const common = `business_id=ads-biz-${Math.floor(i / TYPES.length)}&program_name=${type}`;
      return type === 'CPC' ? `${common}&budget=20000&is_autobid=true` : common;
    };
    const jobIds: string[] = [];
    // 20 at a time, alternating between the processes.
    for (let i = 0; i < JOBS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, k) => call(servers[(i + k) % 2].url, 'POST', `/v1/reseller/program/create?${params(i + k)}`, basic)),
      );
      for (const r of batch) {
        expect(r.status, r.text).toBe(200);
        jobIds.push(r.body.job_id);
      }
    }

    // Wait (without timing anything) until no job is PROCESSING.
    await eventually(
      async () =>
        Number(
          (
            await pair!.pg.database.db
              .selectFrom('ad_jobs')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('status', '=', 'PROCESSING')
              .executeTakeFirstOrThrow()
          ).n,
        ),
      (open) => open === 0,
      'every job to complete',
      100,
    );
    // Every receipt COMPLETED with its program; one program per (business, type); one CREATED event each.
    const results = await pair!.pg.database.db.selectFrom('ad_jobs').select(['id', 'results']).execute();
    expect(results).toHaveLength(JOBS);
    for (const row of results) {
      const added = JSON.parse(row.results!)[0].update_results.program_added;
      expect(added.program_id.status, row.id).toBe('COMPLETED');
    }
    const programs = await pair!.pg.database.db.selectFrom('ad_programs').select(['business_id', 'program_type']).execute();
    expect(programs).toHaveLength(JOBS);
    expect(new Set(programs.map((p) => `${p.business_id}/${p.program_type}`)).size).toBe(JOBS);
    const events = await pair!.pg.database.db
      .selectFrom('domain_events')
      .select('type')
      .where('type', '=', 'ADVERTISING_JOB_COMPLETED_EVENT')
      .execute();
    expect(events).toHaveLength(JOBS);
    // Each task ran once, and both processes took part.
    const tasks = await pair!.pg.database.db
      .selectFrom('tasks')
      .select(['state', 'attempts'])
      .where('type', '=', 'advertising.apply')
      .execute();
    expect(tasks).toHaveLength(JOBS);
    for (const task of tasks) expect(task).toEqual({ state: 'succeeded', attempts: 1 });
    const applied = await Promise.all(
      servers.map(async (s) => {
        const text = (await call(s.url, 'GET', '/metrics')).text;
        const line = text
          .split('\n')
          .find((l) => l.startsWith('pbs_tasks_total{') && l.includes('type="advertising.apply"') && l.includes('outcome="succeeded"'));
        return Number(line?.split(' ').at(-1) ?? 0);
      }),
    );
    expect(applied[0] + applied[1]).toBe(JOBS);
    expect(applied[0]).toBeGreaterThan(0);
    expect(applied[1]).toBeGreaterThan(0);
  });
});
