import { useState } from 'preact/hooks';
import { go, useGet } from '../hooks';
import { Badge, Card, Page, Problem, Table, when } from '../ui';
import { type Params } from './shared';

interface Entry {
  id: number;
  at: string;
  partner_id: string | null;
  credential: { kind: string; id: string | null } | null;
  operation: string;
  path: string;
  query: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  idempotency_key: string | null;
  bodies_cut: boolean;
}

interface WholeEntry extends Entry {
  request_body: string | null;
  response_body: string | null;
}

interface ErrorGroup {
  error_code: string;
  operation: string;
  status: number;
  count: number;
  first_seen: string;
  last_seen: string;
  hint: string | null;
}

const FILTERS = ['partner_id', 'status', 'operation', 'error_code', 'request_id', 'idempotency_key'] as const;

/** A body as JSON, indented when it is JSON. */
function pretty(text: string | null): string {
  if (text === null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The request log (docs/request-log.md): partners' requests as pbs answered them, one whole, and errors grouped with hints. */
export function Requests(props: Params) {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = props.params.get(name);
    if (value) query.set(name, value);
  }
  const entries = useGet<{ entries: Entry[]; dropped: number }>(`/admin/v1/request-log?limit=100&${query}`, 5_000);
  const partner = props.params.get('partner_id');
  const errors = useGet<{ errors: ErrorGroup[] }>(`/admin/v1/request-log/errors${partner ? `?partner_id=${partner}` : ''}`, 10_000);
  const [open, setOpen] = useState<number | undefined>(undefined);
  const whole = useGet<WholeEntry>(open === undefined ? undefined : `/admin/v1/request-log/${open}`);
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
        <Table
          testId="requests"
          rows={entries.data?.entries}
          empty="No request recorded (the request log is on in the sandbox; PBS_REQUEST_LOG=1 elsewhere)."
          columns={[
            { title: 'At', cell: (e) => when(e.at) },
            { title: 'Status', cell: (e) => <Badge value={String(e.status)} /> },
            { title: 'Operation', cell: (e) => <a onClick={() => setOpen(open === e.id ? undefined : e.id)}>{e.operation}</a> },
            { title: 'Error', cell: (e) => e.error_code ?? '' },
            {
              title: 'Partner',
              cell: (e) => (e.partner_id ? <a href={`#/requests?partner_id=${e.partner_id}`}>{e.partner_id}</a> : '—'),
            },
            { title: 'Duration', numeric: true, cell: (e) => `${e.duration_ms} ms` },
            { title: 'Request id', cell: (e) => <code>{e.request_id}</code> },
          ]}
        />
        {entries.data && entries.data.dropped > 0 && (
          <p>{entries.data.dropped} entries could not be kept up with since this process started.</p>
        )}
      </Card>
      {whole.data && (
        <Card title="One request, whole" wide>
          <p>
            <strong>{whole.data.operation}</strong> → {whole.data.status} {whole.data.error_code ?? ''}
            <br />
            <code>
              {whole.data.path}
              {whole.data.query ? `?${whole.data.query}` : ''}
            </code>{' '}
            {whole.data.idempotency_key && (
              <>
                Idempotency-Key <code>{whole.data.idempotency_key}</code>
              </>
            )}
            {whole.data.bodies_cut && ' (a body was cut at 16 kB)'}
          </p>
          <h3>Sent</h3>
          <pre data-testid="request-body">{pretty(whole.data.request_body)}</pre>
          <h3>Answered</h3>
          <pre data-testid="response-body">{pretty(whole.data.response_body)}</pre>
        </Card>
      )}
      <Card title="Errors, by code and operation">
        <Problem error={errors.error} />
        <Table
          testId="error-groups"
          rows={errors.data?.errors}
          empty="No error answered."
          columns={[
            {
              title: 'Code',
              cell: (g) => (
                <a href={`#/requests?${new URLSearchParams({ ...Object.fromEntries(query), error_code: g.error_code })}`}>{g.error_code}</a>
              ),
            },
            { title: 'Operation', cell: (g) => g.operation },
            { title: 'Count', numeric: true, cell: (g) => g.count },
            { title: 'Last seen', cell: (g) => when(g.last_seen) },
            { title: 'What to do', cell: (g) => g.hint ?? '' },
          ]}
        />
      </Card>
    </Page>
  );
}
