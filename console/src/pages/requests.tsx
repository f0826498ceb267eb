import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { ErrorGroups, RequestDetail, RequestTable } from '../request-log';
import { Card, Page, Problem } from '../ui';
import { usePartnerNames, type Params } from './shared';

const FILTERS = ['partner_id', 'status', 'operation', 'error_code', 'request_id', 'idempotency_key'] as const;

/** The request log (docs/request-log.md): partners' requests as pbs answered them, one whole, and errors grouped with hints. */
export function Requests(props: Params) {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = props.params.get(name);
    if (value) query.set(name, value);
  }
  const filter = Object.fromEntries(query);
  const entries = useQuery(
    `log:${query}`,
    () => must(pbs.GET('/admin/v1/request-log', { params: { query: { limit: 100, ...filter } } })),
    5_000,
  );
  const partner = props.params.get('partner_id') ?? undefined;
  const errors = useQuery(
    `errors:${partner ?? ''}`,
    () => must(pbs.GET('/admin/v1/request-log/errors', { params: { query: { partner_id: partner } } })),
    10_000,
  );
  const [open, setOpen] = useState<number | undefined>(undefined);
  const partnerName = usePartnerNames();
  const whole = useQuery(open === undefined ? undefined : `entry:${open}`, () =>
    must(pbs.GET('/admin/v1/request-log/{entry_id}', { params: { path: { entry_id: open! } } })),
  );
  const set = (name: string, value: string) => go('requests', { ...Object.fromEntries(query), [name]: value || undefined });
  return (
    <Page title="Partner requests">
      <Card>
        <form class="form" onSubmit={(e) => e.preventDefault()}>
          {FILTERS.map((name) => (
            <label>
              {name.replace('_', ' ')}
              <input
                name={name}
                size={name === 'operation' ? 36 : 18}
                placeholder={name === 'status' ? '4xx or 404' : ''}
                value={props.params.get(name) ?? ''}
                onChange={(e) => set(name, (e.target as HTMLInputElement).value.trim())}
              />
            </label>
          ))}
        </form>
        <Problem error={entries.error} />
        <RequestTable
          rows={entries.data?.entries}
          open={open}
          onOpen={setOpen}
          empty="No request recorded (the request log is on in the sandbox; PBS_REQUEST_LOG=1 elsewhere)."
          extra={[
            {
              title: 'Partner',
              cell: (e) => (e.partner_id ? <a href={`#/requests?partner_id=${e.partner_id}`}>{partnerName(e.partner_id)}</a> : '—'),
            },
          ]}
        />
        {entries.data && entries.data.dropped > 0 && (
          <p>{entries.data.dropped} entries could not be kept up with since this process started.</p>
        )}
      </Card>
      {whole.data && <RequestDetail entry={whole.data} leadLink={(id) => `#/leads?lead=${encodeURIComponent(id)}`} />}
      <Card title="Errors, by code and operation">
        <Problem error={errors.error} />
        <ErrorGroups
          rows={errors.data?.errors}
          codeLink={(g) => `#/requests?${new URLSearchParams({ ...Object.fromEntries(query), error_code: g.error_code })}`}
        />
      </Card>
    </Page>
  );
}
