/** Advertising: job creations to COMPLETED, and job status polls (a scenario of `npm run bench`, run by bench/run.ts). */
import type autocannon from 'autocannon';
import { generateDemoBusinesses } from '../../src/demo/demo-dataset.js';
import { ADMIN, api, type Figure, METRO, pick, importBusinesses, readPath } from '../harness.js';

/** Program types one business can hold together (EP excludes BP): 125 businesses × 8 = 1,000 creations. */
export const AD_TYPES = ['BP', 'CPC', 'RCA', 'CTA', 'SLIDESHOW', 'BH', 'VL', 'LOGO'];

export const AD_JOBS = 1000;

export interface AdvertisingFigures {
  database: string;
  submitSeconds: number;
  completedSeconds: number;
}

/**
 * Advertising: 1,000 creations sent by 10 concurrent clients, then the time until every job is
 * COMPLETED (the processing delay set to 0); then job-status polling beside raw node:http.
 * Answers the figures and the polling measurement.
 */
export async function advertisingScenario(name: string, base: string): Promise<{ figures: AdvertisingFigures; polling: Figure[] }> {
  const businesses = generateDemoBusinesses(AD_JOBS / AD_TYPES.length, 777, [METRO]).map((b) => ({ ...b, specialties: 'Everything' }));
  await importBusinesses(base, businesses);
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Ads bench', interfaces: ['advertising'] }));
  const credential = await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'basic' }));
  await api(base, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, ADMIN, businesses.map((b) => b.id).join('\n'), 'text/csv');
  const authorization = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
  const queue = businesses.flatMap((b) =>
    AD_TYPES.map((type) => `business_id=${b.id}&program_name=${type}${type === 'CPC' ? '&budget=20000&is_autobid=true' : ''}`),
  );
  const jobIds: string[] = [];
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let params = queue.shift(); params !== undefined; params = queue.shift()) {
        const response = await fetch(`${base}/v1/reseller/program/create?${params}`, { method: 'POST', headers: { authorization } });
        if (response.status !== 200) throw new Error(`create → ${response.status} ${await response.text()}`);
        jobIds.push(((await response.json()) as { job_id: string }).job_id);
      }
    }),
  );
  const submitted = Date.now();
  for (;;) {
    const open = await api(base, 'GET', '/admin/v1/advertising/jobs?status=PROCESSING&limit=1', ADMIN);
    if (open.jobs.length === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const completed = Date.now();
  const pollOptions = (ids: string[]): Parameters<typeof autocannon>[0] => {
    const statusRequest = () => ({ method: 'GET' as const, path: `/v1/reseller/status/${pick(ids)}` });
    return {
      url: base,
      headers: { authorization },
      requests: [statusRequest()],
      setupClient: (client) => client.setRequests(Array.from({ length: 200 }, statusRequest)),
    };
  };
  const polling = await readPath(`advertising job status, COMPLETED (${name})`, pollOptions(jobIds));
  // Jobs still PROCESSING (held by the operator): every poll reads the database (202).
  await api(base, 'PUT', '/admin/v1/advertising/settings', ADMIN, JSON.stringify({ hold_new_jobs: true }));
  const held: string[] = [];
  for (const b of businesses.slice(0, 100)) {
    const response = await fetch(`${base}/v1/reseller/program/create?business_id=${b.id}&program_name=PORTFOLIO`, {
      method: 'POST',
      headers: { authorization },
    });
    held.push(((await response.json()) as { job_id: string }).job_id);
  }
  const processing = await readPath(`advertising job status, PROCESSING (${name})`, pollOptions(held));
  return {
    figures: { database: name, submitSeconds: (submitted - started) / 1000, completedSeconds: (completed - started) / 1000 },
    polling: [polling, processing],
  };
}

export function advertisingLines(runs: AdvertisingFigures[]): string[] {
  return [
    `advertising: ${AD_JOBS.toLocaleString('en-US')} program creations from 10 concurrent clients (PBS_AD_JOB_DELAY_MS=0), time from the first request:`,
    '',
    '| database | all answered (job ids) | all COMPLETED |',
    '|---|---:|---:|',
    ...runs.map((r) => `| ${r.database} | ${r.submitSeconds.toFixed(2)} s | ${r.completedSeconds.toFixed(2)} s |`),
  ];
}
