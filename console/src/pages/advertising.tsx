import { api } from '../api';
import { useGet } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import { type Params } from './shared';

export function Advertising(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const programs = useGet<{
    programs: Array<{
      program_id: string;
      program_type: string;
      yelp_business_id: string;
      partner_id: string;
      state: string;
      start_date: string;
      program_metrics: { budget: number; ad_cost: number; billed_clicks: number };
    }>;
  }>(`/admin/v1/advertising/programs?limit=100${business ? `&business_id=${business}` : ''}`);
  const jobs = useGet<{
    jobs: Array<{
      job_id: string;
      kind: string;
      status: string;
      held: boolean;
      partner_id: string;
      created_at: string;
      completed_at: string | null;
    }>;
  }>('/admin/v1/advertising/jobs?limit=50', 5_000);
  const settings = useGet<{ hold_new_jobs: boolean }>('/admin/v1/advertising/settings');
  return (
    <Page
      title="Advertising"
      actions={
        settings.data && (
          <Action
            label={settings.data.hold_new_jobs ? 'Stop holding new jobs' : 'Hold new jobs'}
            run={() => api('PUT', '/admin/v1/advertising/settings', { hold_new_jobs: !settings.data!.hold_new_jobs })}
            done={settings.reload}
          />
        )
      }
    >
      <Card title="Jobs (newest first)">
        <Problem error={jobs.error} />
        <Table
          testId="jobs"
          rows={jobs.data?.jobs}
          empty="No job yet."
          columns={[
            { title: 'Job', cell: (j) => <code>{j.job_id}</code> },
            { title: 'Kind', cell: (j) => j.kind },
            { title: 'Status', cell: (j) => <Badge value={j.held ? 'held' : j.status} /> },
            { title: 'Created', cell: (j) => when(j.created_at) },
            {
              title: '',
              cell: (j) =>
                j.status === 'PROCESSING' ? (
                  <span class="actions">
                    {j.held ? (
                      <Action
                        label="Release"
                        run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/release`)}
                        done={jobs.reload}
                      />
                    ) : (
                      <Action label="Hold" run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/hold`)} done={jobs.reload} />
                    )}
                    <Action
                      label="Complete now"
                      run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/complete`)}
                      done={() => (jobs.reload(), programs.reload())}
                    />
                  </span>
                ) : null,
            },
          ]}
        />
      </Card>
      <Card title={`Programs${business ? ' of the business' : ''}`}>
        <Problem error={programs.error} />
        <Table
          testId="programs"
          rows={programs.data?.programs}
          empty="No program yet."
          columns={[
            { title: 'Program', cell: (p) => <code>{p.program_id}</code> },
            { title: 'Type', cell: (p) => p.program_type },
            { title: 'Business', cell: (p) => <a href={`#/businesses?id=${p.yelp_business_id}`}>{p.yelp_business_id}</a> },
            { title: 'State', cell: (p) => <Badge value={p.state} /> },
            { title: 'Budget', numeric: true, cell: (p) => (p.program_metrics.budget / 100).toFixed(2) },
            { title: 'Spent', numeric: true, cell: (p) => (p.program_metrics.ad_cost / 100).toFixed(2) },
            { title: 'Clicks', numeric: true, cell: (p) => p.program_metrics.billed_clicks },
          ]}
        />
      </Card>
    </Page>
  );
}
