import { useState } from 'preact/hooks';
import { api } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import { type Params } from './shared';

interface Delivery {
  id: string;
  partner_id: string;
  business_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
  attempts_log: Array<{ at: string; status_code: number | null; latency_ms: number; error: string | null }>;
}

/** Every failed message, whatever the sandbox clock says (messages are dated on the pbs clock). */
const EVER = { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' };

export function Webhooks(props: Params) {
  const status = props.params.get('status') ?? '';
  const deliveries = useGet<{ deliveries: Delivery[] }>(
    `/admin/v1/webhook-deliveries?limit=100${status ? `&status=${status}` : ''}`,
    5_000,
  );
  const [open, setOpen] = useState<string | undefined>(undefined);
  return (
    <Page
      title="Webhook deliveries"
      actions={
        <Action
          label="Redeliver all failed"
          run={() => api('POST', '/admin/v1/webhook-deliveries/redeliver-failed', EVER)}
          done={deliveries.reload}
        />
      }
    >
      <Card>
        <div class="form">
          <label>
            Status
            <select name="status" value={status} onChange={(e) => go('webhooks', { status: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              <option value="pending">pending</option>
              <option value="delivered">delivered</option>
              <option value="failed">failed</option>
            </select>
          </label>
        </div>
        <Problem error={deliveries.error} />
        <Table
          testId="deliveries"
          rows={deliveries.data?.deliveries}
          empty="No delivery."
          columns={[
            { title: 'Event', cell: (d) => d.event_type },
            { title: 'Partner', cell: (d) => <a href={`#/partners?id=${d.partner_id}`}>{d.partner_id}</a> },
            { title: 'Status', cell: (d) => <Badge value={d.status} /> },
            {
              title: 'Attempts',
              numeric: true,
              cell: (d) => <a onClick={() => setOpen(open === d.id ? undefined : d.id)}>{d.attempts}</a>,
            },
            { title: 'Last answer', cell: (d) => d.last_status_code ?? d.last_error ?? '—' },
            { title: 'Created', cell: (d) => when(d.created_at) },
            {
              title: '',
              cell: (d) =>
                d.status === 'pending' ? (
                  `next ${when(d.next_attempt_at)}`
                ) : (
                  <Action
                    label="Redeliver"
                    testId={`redeliver-${d.id}`}
                    run={() => api('POST', `/admin/v1/webhook-deliveries/${d.id}/redeliver`)}
                    done={deliveries.reload}
                  />
                ),
            },
          ]}
        />
        {open && (
          <Card title="Attempts">
            <Table
              rows={deliveries.data?.deliveries.find((d) => d.id === open)?.attempts_log}
              columns={[
                { title: 'At', cell: (a) => when(a.at) },
                { title: 'Status', cell: (a) => a.status_code ?? '—' },
                { title: 'Latency', numeric: true, cell: (a) => `${a.latency_ms} ms` },
                { title: 'Error', cell: (a) => a.error ?? '' },
              ]}
            />
          </Card>
        )}
      </Card>
    </Page>
  );
}
