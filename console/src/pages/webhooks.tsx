import { api } from '../api';
import { DeliveriesTable, type Delivery } from '../deliveries';
import { go, useGet } from '../hooks';
import { Action, Card, Page, Problem } from '../ui';
import { type Params } from './shared';

/** Every failed message, whatever the sandbox clock says (messages are dated on the pbs clock). */
const EVER = { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' };
const FILTERS = ['status', 'partner_id', 'event_type'] as const;

/** Webhook deliveries of every partner (docs/webhooks.md): filtered by state, partner and event type; each with its attempts. */
export function Webhooks(props: Params) {
  const chosen = Object.fromEntries(FILTERS.flatMap((name) => (props.params.get(name) ? [[name, props.params.get(name)!]] : [])));
  const deliveries = useGet<{ deliveries: Delivery[] }>(
    `/admin/v1/webhook-deliveries?${new URLSearchParams({ limit: '100', ...chosen })}`,
    5_000,
  );
  const partners = useGet<{ partners: Array<{ id: string; name: string }> }>('/admin/v1/partners?limit=200');
  const nameOf = (id: string) => partners.data?.partners.find((p) => p.id === id)?.name ?? id;
  const set = (name: string, value: string) => go('webhooks', { ...chosen, [name]: value || undefined });
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
      <Card wide>
        <div class="form">
          <label>
            Status
            <select name="status" value={chosen.status ?? ''} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
              <option value="">any</option>
              <option value="pending">pending</option>
              <option value="delivered">delivered</option>
              <option value="failed">failed</option>
            </select>
          </label>
          <label>
            Partner
            <select
              name="partner_id"
              value={chosen.partner_id ?? ''}
              onChange={(e) => set('partner_id', (e.target as HTMLSelectElement).value)}
            >
              <option value="">any</option>
              {partners.data?.partners.map((p) => (
                <option value={p.id}>{p.name}</option>
              ))}
            </select>
          </label>
          <label>
            Event type
            <input
              name="event_type"
              placeholder="NEW_EVENT"
              value={chosen.event_type ?? ''}
              onChange={(e) => set('event_type', (e.target as HTMLInputElement).value.trim())}
            />
          </label>
        </div>
        <Problem error={deliveries.error} />
        <DeliveriesTable
          rows={deliveries.data?.deliveries}
          empty="No delivery."
          reload={deliveries.reload}
          redeliverPath={(id) => `/admin/v1/webhook-deliveries/${id}/redeliver`}
          extra={[{ title: 'Partner', cell: (d) => <a href={`#/partners?id=${d.partner_id}`}>{nameOf(d.partner_id)}</a> }]}
        />
      </Card>
    </Page>
  );
}
