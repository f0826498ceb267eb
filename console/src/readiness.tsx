import { useState } from 'preact/hooks';
import type { paths } from '../../packages/sdk/src/schema';
import type { Answer } from './client';
import type { Need } from './operator';
import { Action, Badge, Card, Problem, Table, when } from './ui';

/**
 * Launch readiness as the console and the portal both show it (docs/readiness.md): each
 * interface's milestones, green or red with what is missing and how to get there, and the drills.
 */

export type ReadinessReport = Answer<'/portal/v1/readiness', 'get'>;
export type Drill = Answer<'/portal/v1/readiness/drills/{drill_id}', 'get'>;
type DrillKind = NonNullable<paths['/portal/v1/readiness/drills']['post']['requestBody']>['content']['application/json']['kind'];

/** The drills a partner can start, with what each does. */
const DRILL_CHOICES: Array<{ kind: DrillKind; label: string }> = [
  { kind: 'retry_after', label: '503 with Retry-After' },
  { kind: 'rate_limit', label: '429 over the rate limit' },
  { kind: 'hold_expiry', label: 'A hold expiring under your feet' },
  { kind: 'slow_answer', label: 'A slow answer near your timeout' },
  { kind: 'webhook_duplicates', label: 'Duplicated and reordered webhooks' },
];

export function ReadinessView(props: { report: ReadinessReport | undefined; evidenceHref?: (requestId: string) => string }) {
  const r = props.report;
  if (!r) return null;
  return (
    <>
      <p data-testid="readiness-score">
        Score <strong>{r.score} %</strong> {r.ready ? '— every milestone is green.' : ''}{' '}
        {r.approval ? <Badge value={`approved by ${r.approval.approved_by}`} /> : <span class="muted">Not approved for launch.</span>}
        {r.since && <span class="muted"> Calls judged since {when(r.since)}.</span>}
      </p>
      {r.interfaces.map((i) => (
        <Card title={`${i.interface}: ${i.score} % (${i.green} of ${i.total})`} wide>
          <Table
            testId={`readiness-${i.interface}`}
            rows={i.milestones}
            columns={[
              { title: '', cell: (m) => <Badge value={m.status} /> },
              { title: 'Milestone', cell: (m) => <span title={m.rule}>{m.title}</span> },
              {
                title: 'Evidence, or what is missing',
                cell: (m) =>
                  m.status === 'green' ? (
                    <Evidence ids={m.evidence} href={props.evidenceHref} />
                  ) : (
                    <>
                      {m.problem} {m.hint && <span class="muted">{m.hint}</span>} <Evidence ids={m.evidence} href={props.evidenceHref} />
                    </>
                  ),
              },
            ]}
          />
        </Card>
      ))}
    </>
  );
}

function Evidence(props: { ids: string[]; href?: (requestId: string) => string }) {
  return (
    <>
      {props.ids.map((id) =>
        props.href ? (
          <a href={props.href(id)}>
            <code>{id}</code>{' '}
          </a>
        ) : (
          <code>{id} </code>
        ),
      )}
    </>
  );
}

/** The drills: start one, see each graded. */
export function DrillsCard(props: {
  drills: Drill[] | undefined;
  error: unknown;
  need: Need;
  start: (kind: DrillKind) => Promise<unknown>;
  stop: (id: string) => Promise<unknown>;
  changed: () => void;
}) {
  const [kind, setKind] = useState<DrillKind>('retry_after');
  return (
    <Card title="Drills" wide>
      <p class="muted">
        Sandbox only. pbs fails your calls (or duplicates your webhooks) on purpose, for a few minutes, and grades what your client does by
        the milestones above. Nobody else’s calls are touched.
      </p>
      <div class="form">
        <label>
          drill
          <select
            name="drill-kind"
            value={kind}
            onChange={(e) => setKind(DRILL_CHOICES.find((c) => c.kind === (e.target as HTMLSelectElement).value)?.kind ?? kind)}
          >
            {DRILL_CHOICES.map((c) => (
              <option value={c.kind}>{c.label}</option>
            ))}
          </select>
        </label>
        <Action
          need={props.need}
          label="Start drill"
          kind="primary"
          testId="start-drill"
          run={() => props.start(kind)}
          done={props.changed}
        />
      </div>
      <Problem error={props.error} />
      <Table
        testId="drills"
        rows={props.drills}
        empty="No drill yet."
        columns={[
          { title: 'Drill', cell: (d) => <span title={d.description}>{d.title}</span> },
          { title: 'State', cell: (d) => <Badge value={d.state} /> },
          { title: 'Operation', cell: (d) => (d.operation ? <code>{d.operation}</code> : '—') },
          {
            title: 'Milestones',
            cell: (d) => d.milestones.map((m) => `${m.id}: ${m.outcome}${m.problem ? ` (${m.problem})` : ''}`).join('; '),
          },
          { title: 'Started', cell: (d) => `${when(d.started_at)} by ${d.started_by}` },
          {
            title: '',
            cell: (d) =>
              d.state === 'running' ? (
                <Action need={props.need} label="Stop" testId={`stop-drill-${d.id}`} run={() => props.stop(d.id)} done={props.changed} />
              ) : null,
          },
        ]}
      />
    </Card>
  );
}
