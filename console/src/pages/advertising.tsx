import { must, pbs, type Answer } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Id, Page, Problem, Table, when } from '../ui';
import { Promotions } from './promotions';
import { FilterSelect, PartnerFilter, useBusinessNames, usePartnerNames, type Params } from './shared';

type Job = Answer<'/admin/v1/advertising/jobs', 'get'>['jobs'][number];
type BusinessResult = Job['business_results'][number];
type Entry = { status?: string; requested_value?: unknown; [key: string]: unknown };

const JOB_FILTERS = ['status', 'partner_id'] as const;

/** Cents as an amount; none when there is none. */
const money = (cents: number | null | undefined) => (cents === null || cents === undefined ? '—' : (cents / 100).toFixed(2));

/** Each key a job's receipt reports, as rows: the section (program_added, …), the key, its entry. */
function entriesOf(result: BusinessResult): Array<{ section: string; key: string; entry: Entry }> {
  const u = result.update_results ?? {};
  const keyed = (section: string, group: Record<string, Entry> | undefined) =>
    Object.entries(group ?? {}).map(([key, entry]) => ({ section, key, entry }));
  return [
    ...keyed('program_added', u.program_added),
    ...keyed('program_modified', u.program_modified),
    ...(u.program_ended ? [{ section: 'program_ended', key: '', entry: u.program_ended }] : []),
  ];
}

/** An entry's or a result's error as `CODE: message`. */
function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const { code, message } = error as { code?: unknown; message?: unknown };
  return `${typeof code === 'string' ? code : ''}: ${typeof message === 'string' ? message : ''}`;
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
            {r.error && <code> {errorText(r.error)}</code>}
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
              { title: 'Error', cell: (e) => errorText(e.entry.error) },
            ]}
          />
        </>
      ))}
    </Card>
  );
}

export function Advertising(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const programs = useQuery(`programs:${business ?? ''}`, () =>
    must(pbs.GET('/admin/v1/advertising/programs', { params: { query: { limit: 100, business_id: business } } })),
  );
  const filter = Object.fromEntries(JOB_FILTERS.flatMap((name) => (props.params.get(name) ? [[name, props.params.get(name)!]] : [])));
  const status = filter.status === 'PROCESSING' || filter.status === 'COMPLETED' ? filter.status : undefined;
  const jobs = useQuery(
    `jobs:${new URLSearchParams(filter)}`,
    () => must(pbs.GET('/admin/v1/advertising/jobs', { params: { query: { limit: 50, status, partner_id: filter.partner_id } } })),
    5_000,
  );
  const partnerName = usePartnerNames();
  const businessName = useBusinessNames([
    ...(jobs.data?.jobs.flatMap((j) => j.business_results.map((r) => r.identifier)) ?? []),
    ...(programs.data?.programs.map((p) => p.yelp_business_id) ?? []),
  ]);
  const openJob = props.params.get('job') ?? undefined;
  const opened = jobs.data?.jobs.find((j) => j.job_id === openJob);
  const set = (name: string, value: string | undefined) =>
    go('advertising', { ...filter, business, job: openJob, [name]: value || undefined });
  const settings = useQuery('ad-settings', () => must(pbs.GET('/admin/v1/advertising/settings')));
  return (
    <Page
      title="Advertising"
      actions={
        settings.data && (
          <Action
            need="admin"
            label={settings.data.hold_new_jobs ? 'Stop holding new jobs' : 'Hold new jobs'}
            run={() => must(pbs.PUT('/admin/v1/advertising/settings', { body: { hold_new_jobs: !settings.data!.hold_new_jobs } }))}
            done={settings.reload}
          />
        )
      }
    >
      <Card title="Jobs (newest first)" wide>
        <div class="form">
          <FilterSelect
            label="Status"
            name="status"
            value={filter.status}
            choices={[
              ['PROCESSING', 'PROCESSING'],
              ['COMPLETED', 'COMPLETED'],
            ]}
            onChange={(value) => set('status', value)}
          />
          <PartnerFilter value={filter.partner_id} onChange={(id) => set('partner_id', id)} />
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
            {
              title: 'Subject',
              cell: (j) =>
                j.business_results.map((r) =>
                  r.identifier_type === 'BUSINESS' ? (
                    <a href={`#/businesses?id=${r.identifier}`}>{businessName(r.identifier)}</a>
                  ) : (
                    <code>{r.identifier}</code>
                  ),
                ),
            },
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
                        need="support"
                        label="Release"
                        run={() =>
                          must(pbs.POST('/admin/v1/advertising/jobs/{job_id}/release', { params: { path: { job_id: j.job_id } } }))
                        }
                        done={jobs.reload}
                      />
                    ) : (
                      <Action
                        need="support"
                        label="Hold"
                        run={() => must(pbs.POST('/admin/v1/advertising/jobs/{job_id}/hold', { params: { path: { job_id: j.job_id } } }))}
                        done={jobs.reload}
                      />
                    )}
                    <Action
                      need="support"
                      label="Complete now"
                      run={() => must(pbs.POST('/admin/v1/advertising/jobs/{job_id}/complete', { params: { path: { job_id: j.job_id } } }))}
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
            { title: 'Business', cell: (p) => <a href={`#/businesses?id=${p.yelp_business_id}`}>{businessName(p.yelp_business_id)}</a> },
            { title: 'State', cell: (p) => <Badge value={p.state} /> },
            // A program without a budget of its own (BP) shows none, not 0.00.
            { title: 'Budget', numeric: true, cell: (p) => money(p.program_metrics?.budget) },
            { title: 'Spent', numeric: true, cell: (p) => money(p.program_metrics?.ad_cost) },
            { title: 'Clicks', numeric: true, cell: (p) => p.program_metrics?.billed_clicks ?? '—' },
          ]}
        />
      </Card>
      <Promotions />
    </Page>
  );
}
