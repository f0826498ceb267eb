import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { DrillsCard, ReadinessView } from '../readiness';
import { Action, Card, IfMay, Problem } from '../ui';

/**
 * A partner's launch readiness as the operator sees it (docs/readiness.md): the same report as
 * the partner's portal, its drills, and the approval for launch (recorded with who and when).
 */
export function PartnerReadiness(props: { partnerId: string }) {
  const path = { partner_id: props.partnerId };
  const report = useQuery(`readiness:${props.partnerId}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/readiness', { params: { path } })),
  );
  const drills = useQuery(`drills:${props.partnerId}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/readiness/drills', { params: { path } })),
  );
  const [note, setNote] = useState('');
  const changed = () => (report.reload(), drills.reload());
  const approved = report.data?.approval;
  return (
    <>
      <Card title="Launch readiness" wide>
        <Problem error={report.error} />
        <ReadinessView report={report.data} evidenceHref={(id) => `#/requests?request_id=${encodeURIComponent(id)}`} />
        <IfMay need="partner_manager">
          <div class="form">
            {approved ? (
              <Action
                need="partner_manager"
                label="Withdraw approval"
                kind="danger"
                testId="withdraw-approval"
                run={() => must(pbs.DELETE('/admin/v1/partners/{partner_id}/launch-approval', { params: { path } }))}
                done={changed}
              />
            ) : (
              <>
                <label>
                  Note
                  <input name="approval-note" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
                </label>
                <Action
                  need="partner_manager"
                  label="Approve for launch"
                  kind="primary"
                  testId="approve-launch"
                  run={() => must(pbs.PUT('/admin/v1/partners/{partner_id}/launch-approval', { params: { path }, body: { note } }))}
                  done={changed}
                />
              </>
            )}
          </div>
        </IfMay>
      </Card>
      <DrillsCard
        need="partner_manager"
        drills={drills.data?.drills}
        error={drills.error}
        start={(kind) => must(pbs.POST('/admin/v1/partners/{partner_id}/readiness/drills', { params: { path }, body: { kind } }))}
        stop={(id) => must(pbs.POST('/admin/v1/readiness/drills/{drill_id}/stop', { params: { path: { drill_id: id } } }))}
        changed={changed}
      />
    </>
  );
}
