import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { DrillsCard, ReadinessView } from '../readiness';
import { Action, Page, Problem } from '../ui';

/** Your launch readiness (docs/readiness.md): milestones proven by your own traffic, and drills. */
export function PortalReadiness() {
  const report = useQuery('readiness', () => must(pbs.GET('/portal/v1/readiness')), 5_000);
  const drills = useQuery('drills', () => must(pbs.GET('/portal/v1/readiness/drills')), 3_000);
  const changed = () => (report.reload(), drills.reload());
  return (
    <Page
      title="Launch readiness"
      actions={
        <Action
          need="partner"
          label="Start over"
          confirm="Judge only calls from now on?"
          run={() => must(pbs.POST('/portal/v1/readiness/reset'))}
          done={changed}
        />
      }
    >
      <p class="muted">Each milestone turns green when your own calls show it; a red one says what is missing and how to get there.</p>
      <Problem error={report.error} />
      <ReadinessView report={report.data} evidenceHref={(id) => `#/requests?request_id=${encodeURIComponent(id)}`} />
      <DrillsCard
        need="partner"
        drills={drills.data?.drills}
        error={drills.error}
        start={(kind) => must(pbs.POST('/portal/v1/readiness/drills', { body: { kind } }))}
        stop={(id) => must(pbs.POST('/portal/v1/readiness/drills/{drill_id}/stop', { params: { path: { drill_id: id } } }))}
        changed={changed}
      />
    </Page>
  );
}
