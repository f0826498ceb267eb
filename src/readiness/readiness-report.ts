import { toIso } from '../platform/clock.js';
import { DELIVERIES_JUDGED, DELIVERY_TIMEOUT_MS, MILESTONES, READINESS_INTERFACES, type Milestone } from './milestones.js';
import { settle, type Mark, type Progress } from './readiness-judge.js';

/**
 * A partner's readiness report (docs/readiness.md "The report") from its progress, the webhook
 * delivery log's latest and the operator's approval. Pure: the service reads, this decides.
 */

/** What the webhooks family tells of a partner's receiver. */
export interface ReceiverHealth {
  endpoint: { url: string; verified: boolean } | undefined;
  /** The latest deliveries, newest first, each with its attempts. */
  deliveries: Array<{ id: string; status: string; attempts: Array<{ status_code: number | null; latency_ms: number; at: string }> }>;
}

export interface Approval {
  approved_by: string;
  approved_at: number;
  note: string;
}

export interface MilestoneView {
  id: string;
  title: string;
  status: 'green' | 'red';
  /** Red because the partner's traffic (or receiver) did something wrong, not only because it has not shown it yet. */
  refuted: boolean;
  rule: string;
  /** While red: what is missing (not shown yet) or what went wrong. */
  problem: string | null;
  hint: string | null;
  /** X-Request-Ids of the calls that showed it (green) or refuted it (red), newest first. */
  evidence: string[];
  at: string | null;
  /** Webhook milestones: the deliveries behind them. */
  deliveries?: string[];
  /** Drill milestones: the drill behind them. */
  drill?: string;
}

export interface InterfaceReadiness {
  interface: string;
  score: number;
  green: number;
  total: number;
  milestones: MilestoneView[];
}

export interface ReadinessReport {
  partner_id: string;
  name: string;
  generated_at: string;
  /** Calls since then are judged (a fresh start resets it); null: since the partner's first call. */
  since: string | null;
  score: number;
  ready: boolean;
  approval: { approved_by: string; approved_at: string; note: string } | null;
  interfaces: InterfaceReadiness[];
}

const NOT_SHOWN = 'Not shown yet by your traffic.';

/** The interfaces a partner's report lists: those it is granted that have milestones, resilience and webhooks always. */
export function interfacesJudged(granted: readonly string[]): string[] {
  return READINESS_INTERFACES.filter((i) => i === 'resilience' || i === 'webhooks' || granted.includes(i));
}

export function buildReport(input: {
  partnerId: string;
  name: string;
  granted: readonly string[];
  progress: Progress | undefined;
  receiver: ReceiverHealth;
  approval: Approval | undefined;
  /** The partner's latest finished drill of each kind. */
  drills: ReadonlyArray<{ id: string; kind: string; state: string }>;
  now: number;
  /** Real time, for the windows the judge measures in it. */
  realNow: number;
}): ReadinessReport {
  const { progress } = input;
  if (progress) settle(progress, input.now, input.realNow);
  const interfaces = interfacesJudged(input.granted).map((name) => {
    const milestones = MILESTONES.filter((m) => m.interface === name).map((m) =>
      m.proof.kind === 'deliveries'
        ? receiverView(m, input.receiver)
        : m.proof.kind === 'drill'
          ? drillView(m, m.proof.drill, input.drills)
          : progressView(m, progress),
    );
    const green = milestones.filter((m) => m.status === 'green').length;
    return { interface: name, score: percent(green, milestones.length), green, total: milestones.length, milestones };
  });
  const green = interfaces.reduce((n, i) => n + i.green, 0);
  const total = interfaces.reduce((n, i) => n + i.total, 0);
  return {
    partner_id: input.partnerId,
    name: input.name,
    generated_at: toIso(input.now),
    since: progress && progress.since > 0 ? toIso(progress.since) : null,
    score: percent(green, total),
    ready: green === total,
    approval: input.approval
      ? { approved_by: input.approval.approved_by, approved_at: toIso(input.approval.approved_at), note: input.approval.note }
      : null,
    interfaces,
  };
}

function progressView(m: Milestone, progress: Progress | undefined): MilestoneView {
  const refuted: Mark | undefined = progress?.refuted[m.id];
  const proven: Mark | undefined = progress?.proven[m.id];
  const base = { id: m.id, title: m.title, rule: m.rule };
  if (refuted) {
    const problem = refuted.note ?? 'Refuted by your traffic.';
    return { ...base, status: 'red', refuted: true, problem, hint: m.hint, evidence: refuted.requestIds, at: toIso(refuted.at) };
  }
  if (proven)
    return { ...base, status: 'green', refuted: false, problem: null, hint: null, evidence: proven.requestIds, at: toIso(proven.at) };
  return { ...base, status: 'red', refuted: false, problem: NOT_SHOWN, hint: m.hint, evidence: [], at: null };
}

function receiverView(m: Milestone, receiver: ReceiverHealth): MilestoneView {
  const base = { id: m.id, title: m.title, rule: m.rule, evidence: [] };
  const red = (problem: string, refuted: boolean, deliveries: string[] = []): MilestoneView => ({
    ...base,
    status: 'red',
    refuted,
    problem,
    hint: m.hint,
    at: null,
    deliveries,
  });
  const green = (at: string | null, deliveries: string[] = []): MilestoneView => ({
    ...base,
    status: 'green',
    refuted: false,
    problem: null,
    hint: null,
    at,
    deliveries,
  });
  if (!receiver.endpoint) return red('No webhook endpoint registered.', false);
  if (m.id === 'webhooks.verified') return receiver.endpoint.verified ? green(null) : red('The endpoint is not verified.', false);
  const attempted = receiver.deliveries.slice(0, DELIVERIES_JUDGED).filter((d) => d.attempts.length > 0);
  if (attempted.length === 0) return red('No delivery made yet (send a test event).', false);
  const late = attempted.filter((d) =>
    d.attempts.some((a) => a.status_code === null || a.status_code < 200 || a.status_code >= 300 || a.latency_ms > DELIVERY_TIMEOUT_MS),
  );
  if (late.length > 0)
    return red(
      `${late.length} of the last ${attempted.length} deliveries had an attempt not answered 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s.`,
      true,
      late.map((d) => d.id).slice(0, 5),
    );
  return green(attempted[0].attempts[0]?.at ?? null, attempted.map((d) => d.id).slice(0, 5));
}

function drillView(m: Milestone, kind: string, drills: ReadonlyArray<{ id: string; kind: string; state: string }>): MilestoneView {
  const latest = drills.find((d) => d.kind === kind);
  const base = { id: m.id, title: m.title, rule: m.rule, evidence: [], at: null };
  if (latest?.state === 'passed') return { ...base, status: 'green', refuted: false, problem: null, hint: null, drill: latest.id };
  if (latest?.state === 'failed')
    return { ...base, status: 'red', refuted: true, problem: `The ${kind} drill failed.`, hint: m.hint, drill: latest.id };
  return { ...base, status: 'red', refuted: false, problem: NOT_SHOWN, hint: m.hint };
}

const percent = (part: number, whole: number) => (whole === 0 ? 100 : Math.round((100 * part) / whole));

/** The report as Markdown (the API's `format=markdown`, `pbs partner readiness ID --markdown`). */
export function reportMarkdown(report: ReadinessReport): string {
  const lines = [
    `# Launch readiness: ${report.name} (${report.partner_id})`,
    '',
    `Score **${report.score} %**${report.ready ? ' — every milestone is green' : ''}. Generated ${report.generated_at}${report.since ? `; calls judged since ${report.since}` : ''}.`,
    report.approval
      ? `Approved for launch by ${report.approval.approved_by} at ${report.approval.approved_at}${report.approval.note ? `: ${report.approval.note}` : ''}.`
      : 'Not approved for launch.',
  ];
  for (const i of report.interfaces) {
    lines.push(
      '',
      `## ${i.interface}: ${i.score} % (${i.green} of ${i.total})`,
      '',
      '| | milestone | evidence or what is missing |',
      '|---|---|---|',
    );
    for (const m of i.milestones) {
      const detail =
        m.status === 'green'
          ? m.evidence.length > 0
            ? `requests ${m.evidence.map((e) => `\`${e}\``).join(', ')}`
            : 'shown'
          : `${m.problem}${m.hint ? ` ${m.hint}` : ''}${m.evidence.length > 0 ? ` (requests ${m.evidence.map((e) => `\`${e}\``).join(', ')})` : ''}`;
      lines.push(`| ${m.status === 'green' ? '✅' : '❌'} | ${m.title} | ${detail.replace(/\|/g, '\\|')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
