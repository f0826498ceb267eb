import type { PbsClient } from './client.js';
import { retryAfterSeconds } from './errors.js';
import type { paths } from './schema.js';

export type JobStatus = paths['/v1/reseller/status/{job_id}']['get']['responses'][200]['content']['application/json'];

/**
 * Polls an advertising job until it is no longer PROCESSING (pbs answers 202 with `Retry-After`
 * meanwhile, and 200 with the receipt after), and answers its receipt.
 */
export async function pollJob(
  pbs: PbsClient,
  jobId: string,
  options: { timeoutMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<JobStatus> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { data, response } = await pbs.GET('/v1/reseller/status/{job_id}', { params: { path: { job_id: jobId } } });
    if (response.status === 200 && data) return data as JobStatus;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still PROCESSING after ${options.timeoutMs ?? 60_000} ms`);
    await sleep((retryAfterSeconds(response.headers.get('retry-after'), Date.now()) ?? 1) * 1000);
  }
}
