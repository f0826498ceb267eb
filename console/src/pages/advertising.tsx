import { api } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, Id, Page, Problem, Table, when } from '../ui';
import { type Params } from './shared';

type Entry = { status: string; requested_value: unknown; error?: { code: string; message: string } };
type BusinessResult = {
  status: string;
  identifier_type: string;
  identifier: string;
  update_results?: Record<string, Record<string, Entry> | Entry>;
  error?: { code: string; message: string };
};
interface Job {
  job_id: string;
  kind: string;
  status: string;
  held: boolean;
  partner_id: string;
  created_at: string;
  completed_at: string | null;
  business_results: BusinessResult[];
}

const JOB_FILTERS = ['status', 'partner_id'] as const;

const isEntry = (value: Record<string, Entry> | Entry): value is Entry => typeof value.status === 'string';

/** Each key a job's receipt reports, as rows: the section (program_added, …), the key, its entry. */
function entriesOf(result: BusinessResult): Array<{ section: string; key: string; entry: Entry }> {
  return Object.entries(result.update_results ?? {}).flatMap(([section, value]) =>
    isEntry(value) ? [{ section, key: '', entry: value }] : Object.entries(value).map(([key, entry]) => ({ section, key, entry })),
  );
}

/** Whether any part of the job was refused (the job itself still says COMPLETED). */
const rejected = (job: Job) =>
  job.business_results.some((r) => r.status === 'REJECTED' || entriesOf(r).some((e) => e.entry.status === 'REJECTED'));

/** A job's receipt as the partner polls it (docs/advertising.md): each business result and each key's status and error. */
function Receipt(props: { job: Job; partner: string }) {
  const j = props.job;
  return (
    <Card title="Job receipt" wide>
      <p data-testid="receipt">
        <Id value={j.job_id} /> · {j.kind} for {props.partner} · <Badge value={j.status} /> · created {when(j.created_at)}
        {j.completed_at && <> · completed {when(j.completed_at)}</>}
      </p>
      {j.business_results.map((r) => (
        <>
          <p>
            {r.identifier_type} <code>{r.identifier}</code> <Badge value={r.status} />
            {r.error && (
              <>
                {' '}
                <code>{r.error.code}</code> {r.error.message}
              </>
            )}
          </p>
          <Table
            testId="receipt-keys"
            rows={entriesOf(r)}
            empty="No key reported."
            columns={[
              { title: 'Part', cell: (e) => e.section },
              { title: 'Key', cell: (e) => e.key },
              { title: 'Asked', cell: (e) => <code>{JSON.stringify(e.entry.requested_value)}</code> },
              { title: 'Status', cell: (e) => <Badge value={e.entry.status} /> },
              { title: 'Error', cell: (e) => (e.entry.error ? `${e.entry.error.code}: ${e.entry.error.message}` : '') },
            ]}
          />
        </>
      ))}
    </Card>
  );
}

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
  const filter = Object.fromEntries(JOB_FILTERS.flatMap((name) => (props.params.get(name) ? [[name, props.params.get(name)!]] : [])));
  const jobs = useGet<{ jobs: Job[] }>(`/admin/v1/advertising/jobs?${new URLSearchParams({ limit: '50', ...filter })}`, 5_000);
  const partners = useGet<{ partners: Array<{ id: string; name: string }> }>('/admin/v1/partners?limit=200');
  const partnerName = (id: string) => partners.data?.partners.find((p) => p.id === id)?.name ?? id;
  const openJob = props.params.get('job') ?? undefined;
  const opened = jobs.data?.jobs.find((j) => j.job_id === openJob);
  const set = (name: string, value: string | undefined) =>
    go('advertising', { ...filter, business, job: openJob, [name]: value || undefined });
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
      <Card title="Jobs (newest first)" wide>
        <div class="form">
          <label>
            Status
            <select name="status" value={filter.status ?? ''} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
              <option value="">any</option>
              <option value="PROCESSING">PROCESSING</option>
              <option value="COMPLETED">COMPLETED</option>
            </select>
          </label>
          <label>
            Partner
            <select
              name="partner_id"
              value={filter.partner_id ?? ''}
              onChange={(e) => set('partner_id', (e.target as HTMLSelectElement).value)}
            >
              <option value="">any</option>
              {partners.data?.partners.map((p) => (
                <option value={p.id}>{p.name}</option>
              ))}
            </select>
          </label>
        </div>
        <Problem error={jobs.error} />
        <Table
          testId="jobs"
          rows={jobs.data?.jobs}
          empty="No job yet."
          columns={[
            {
              title: 'Job',
              cell: (j) => (
                <a href={`#/advertising?${new URLSearchParams({ ...filter, job: j.job_id })}`} data-testid={`job-${j.job_id}`}>
                  <code>{j.job_id}</code>
                </a>
              ),
            },
            { title: 'Kind', cell: (j) => j.kind },
            { title: 'Partner', cell: (j) => <a href={`#/partners?id=${j.partner_id}`}>{partnerName(j.partner_id)}</a> },
            { title: 'Subject', cell: (j) => j.business_results.map((r) => <code>{r.identifier}</code>) },
            {
              title: 'Status',
              cell: (j) => (
                <>
                  <Badge value={j.held ? 'held' : j.status} /> {rejected(j) && <Badge value="with rejections" />}
                </>
              ),
            },
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
      {opened && <Receipt job={opened} partner={partnerName(opened.partner_id)} />}
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
