import { useState } from 'preact/hooks';
import type { paths } from '../../../packages/sdk/src/schema';
import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import { useYourBusinessNames, YourBusiness } from './business-choice';

type FaultBody = NonNullable<paths['/portal/v1/faults']['post']['requestBody']>['content']['application/json'];
const ACTIONS = ['error', 'latency', 'drop'] as const;
const isAction = (s: string | undefined): s is (typeof ACTIONS)[number] => (ACTIONS as readonly (string | undefined)[]).includes(s);

type OpenApi = { paths: Record<string, Record<string, { security?: unknown[]; 'x-pbs-partner'?: { interface: string | string[] } }>> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The operations a rule of yours can match, as /docs names them: those of the interfaces enabled
 * for you (an operation of another would answer PARTNER_ENDPOINT_DISABLED before any rule).
 */
function partnerOperations(doc: OpenApi | undefined, interfaces: readonly string[]): string[] {
  if (!doc) return [];
  const yours = (declared: string | string[] | undefined) =>
    declared !== undefined && (Array.isArray(declared) ? declared : [declared]).some((i) => interfaces.includes(i));
  return Object.entries(doc.paths)
    .filter(([path]) => !/^\/(admin|portal)\//.test(path))
    .flatMap(([path, item]) => METHODS.filter((m) => yours(item[m]?.['x-pbs-partner']?.interface)).map((m) => `${m.toUpperCase()} ${path}`))
    .sort((a, b) => a.split(' ')[1].localeCompare(b.split(' ')[1]));
}

const NUMBER_FIELDS = [
  { name: 'status', label: 'status', placeholder: '503' },
  { name: 'retry_after_seconds', label: 'Retry-After (s)', placeholder: '' },
  { name: 'latency_ms', label: 'latency (ms)', placeholder: '1000' },
  { name: 'count', label: 'for the next N calls', placeholder: 'every call' },
  { name: 'percent', label: 'percent of calls', placeholder: '100' },
  { name: 'expires_in_seconds', label: 'expires in (s)', placeholder: '3600' },
] as const;

/** A new rule: an operation (and optionally a business), and what happens to matching calls. */
function NewRule(props: { added: () => void }) {
  // The document itself (not an operation of it): read as served.
  const doc = useQuery('openapi', () => fetch('/openapi.json').then((r) => r.json() as Promise<OpenApi>));
  const me = useQuery('me', () => must(pbs.GET('/portal/v1/me')));
  const operations = partnerOperations(doc.data, me.data?.interfaces ?? []);
  const [form, setForm] = useState<Record<string, string>>({ action: 'error' });
  const field = (name: string) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value.trim() });
  const body = (): FaultBody => {
    const num = (name: string) => (form[name] ? Number(form[name]) : undefined);
    return {
      operation: form.operation ?? operations[0],
      action: isAction(form.action) ? form.action : 'error',
      business_id: form.business_id || undefined,
      error_code: form.error_code || undefined,
      status: num('status'),
      retry_after_seconds: num('retry_after_seconds'),
      latency_ms: num('latency_ms'),
      count: num('count'),
      percent: num('percent'),
      expires_in_seconds: num('expires_in_seconds'),
    };
  };
  return (
    <Card title="Add a rule" wide>
      <form class="form" onSubmit={(e) => e.preventDefault()}>
        <label>
          operation
          <select name="operation" value={form.operation ?? operations[0]} onChange={field('operation')}>
            {operations.map((o) => (
              <option value={o}>{o}</option>
            ))}
          </select>
        </label>
        <YourBusiness value={form.business_id ?? ''} onPick={(id) => setForm({ ...form, business_id: id })} />
        <label>
          action
          <select name="action" value={form.action} onChange={field('action')}>
            <option value="error">answer an error</option>
            <option value="latency">add latency</option>
            <option value="drop">drop the connection</option>
          </select>
        </label>
        <label>
          error code
          <input name="error_code" placeholder="the status’s" onInput={field('error_code')} />
        </label>
        {NUMBER_FIELDS.map((f) => (
          <label>
            {f.label}
            <input name={f.name} type="number" size={8} placeholder={f.placeholder} onInput={field(f.name)} />
          </label>
        ))}
      </form>
      <Action
        need="partner"
        label="Add rule"
        kind="primary"
        testId="add-fault"
        run={() => must(pbs.POST('/portal/v1/faults', { body: body() }))}
        done={props.added}
      />
    </Card>
  );
}

/** Faults on demand (sandbox; docs/faults.md): your calls fail, slow down or lose their connection, by your rules. */
export function PortalFaults() {
  const rules = useQuery('faults', () => must(pbs.GET('/portal/v1/faults')), 5_000);
  const businessName = useYourBusinessNames();
  return (
    <Page title="Faults on demand">
      <p class="muted">
        Sandbox only. A matching call is answered by the rule instead of the API: it changes nothing, carries a{' '}
        <code>Pbs-Fault-Injected</code> header naming the rule, and is marked in your request log.
      </p>
      <NewRule added={rules.reload} />
      <Card title="Live rules" wide>
        <Problem error={rules.error} />
        <Table
          testId="faults"
          rows={rules.data?.faults}
          empty="No rule: every call reaches the API."
          columns={[
            { title: 'Operation', cell: (r) => <code>{r.operation}</code> },
            {
              title: 'Business',
              cell: (r) =>
                r.business_id ? (
                  <>
                    {businessName(r.business_id) ?? ''} <code>{r.business_id}</code>
                  </>
                ) : (
                  'any'
                ),
            },
            { title: 'Action', cell: (r) => <Badge value={r.action} /> },
            {
              title: 'Answer',
              cell: (r) =>
                r.action === 'error'
                  ? `${r.status} ${r.error_code ?? ''}${r.retry_after_seconds !== null ? `, Retry-After ${r.retry_after_seconds}` : ''}`
                  : r.action === 'latency'
                    ? `+${r.latency_ms} ms`
                    : 'connection dropped',
            },
            { title: 'Calls left', numeric: true, cell: (r) => r.remaining ?? 'every' },
            { title: 'Percent', numeric: true, cell: (r) => `${r.percent} %` },
            { title: 'Expires', cell: (r) => when(r.expires_at) },
            {
              title: '',
              cell: (r) => (
                <Action
                  need="partner"
                  label="Remove"
                  kind="danger"
                  testId={`remove-fault-${r.id}`}
                  run={() => must(pbs.DELETE('/portal/v1/faults/{fault_id}', { params: { path: { fault_id: r.id } } }))}
                  done={rules.reload}
                />
              ),
            },
          ]}
        />
      </Card>
    </Page>
  );
}
