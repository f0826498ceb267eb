import { expect } from 'vitest';
import { admin, type TestPartner } from '../support/harness.js';

/** A readiness report as the operator's API answers it (docs/readiness.md "The report"), what the tests read of it. */
export interface MilestoneView {
  id: string;
  status: 'green' | 'red';
  refuted: boolean;
  problem: string | null;
  hint: string | null;
  evidence: string[];
}
export interface Report {
  score: number;
  ready: boolean;
  since: string | null;
  approval: { approved_by: string; approved_at: string; note: string } | null;
  interfaces: Array<{ interface: string; score: number; green: number; total: number; milestones: MilestoneView[] }>;
}
export interface Drill {
  id: string;
  state: string;
  milestones: Array<{ id: string; outcome: string; problem: string | null; evidence: string[] }>;
}

/** The partner's report, by the operator's API of the pbs at `base`. */
export async function reportOf(base: string, partner: TestPartner): Promise<Report> {
  const r = await admin(base, 'GET', `/admin/v1/partners/${partner.partner.id}/readiness`);
  expect(r.status, r.text).toBe(200);
  return r.body as Report;
}

/** Every milestone of a report by id. */
export const milestonesOf = (r: Report) => new Map(r.interfaces.flatMap((i) => i.milestones.map((m) => [m.id, m] as const)));

/** The milestones a partner's traffic refuted (not only not shown yet). */
export const refutedOf = (r: Report) => [...milestonesOf(r).values()].filter((m) => m.refuted);
