import { admin, call, createPartner, linkedBusiness, startPbs, type Harness, type TestPartner } from '../support/harness.js';
import type { Dialect } from '../../src/platform/db/database.js';

/** What the advertising tests share: a pbs whose jobs take 2 s (of pbs time), and two resellers. */
export interface AdvertisingWorld {
  h: Harness;
  /** The reseller the tests act as. */
  p: TestPartner;
  /** Another reseller, for isolation. */
  other: TestPartner;
}

export async function startAdvertising(dialect: Dialect, alsoInterfaces: string[] = []): Promise<AdvertisingWorld> {
  const h = await startPbs(dialect, { env: { PBS_AD_JOB_DELAY_MS: '2000' } });
  const p = await createPartner(h.url, ['advertising', ...alsoInterfaces], 'Reseller');
  const other = await createPartner(h.url, ['advertising'], 'Other Reseller');
  for (const q of [p, other])
    await admin(h.url, 'PUT', `/admin/v1/partners/${q.partner.id}/interfaces/advertising`, { json: { per_second: 100000 } });
  return { h, p, other };
}

/**
 * The helpers every advertising test uses, over the world `world()` returns once started:
 * businesses linked to the reseller, Basic credentials, running due jobs, and reading a job.
 */
export function advertisingHelpers(world: () => AdvertisingWorld, businessFields: { name: string; specialties: string }) {
  let n = 0;
  return {
    /** A business linked to the reseller (and to `other` when asked). */
    business: async (overrides: Record<string, unknown> = {}, alsoOther = false) => {
      const { h, p, other } = world();
      const partners = alsoOther ? [p.partner.id, other.partner.id] : [p.partner.id];
      return (
        await linkedBusiness(h.url, partners, {
          name: `${businessFields.name} ${++n}`,
          specialties: businessFields.specialties,
          ...overrides,
        })
      ).id;
    },
    as: (q: TestPartner) => ({ basic: [q.basic.username, q.basic.password] as [string, string] }),
    /** Lets the processing delay pass on the pbs clock and runs the due jobs. */
    process: async () => {
      const { h } = world();
      h.clock.advance(2000);
      await h.pbs.ctx.tasks.runDue();
    },
    /** A job's receipt as JSON (raw: the tests read each entry's status and error as sent). */
    status: (jobId: string, q: TestPartner = world().p) =>
      call(world().h.url, 'GET', `/v1/reseller/status/${jobId}`, { basic: [q.basic.username, q.basic.password] }),
  };
}
