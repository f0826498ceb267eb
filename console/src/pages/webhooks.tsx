import { must, pbs } from '../client';
import { DeliveriesTable } from '../deliveries';
import { go, useQuery } from '../hooks';
import { Action, Card, Page, Problem } from '../ui';
import { useBusinessNames, type Params } from './shared';

/** Every failed message, whatever the sandbox clock says (messages are dated on the pbs clock). */
const EVER = { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' };
const FILTERS = ['status', 'partner_id', 'event_type'] as const;
const STATUSES = ['pending', 'delivered', 'failed'] as const;
const isDeliveryStatus = (s: string | undefined): s is (typeof STATUSES)[number] =>
  (STATUSES as readonly (string | undefined)[]).includes(s);

/** Webhook deliveries of every partner (docs/webhooks.md): filtered by state, partner and event type; each with its attempts. */
export function Webhooks(props: Params) {
  const chosen = Object.fromEntries(FILTERS.flatMap((name) => (props.params.get(name) ? [[name, props.params.get(name)!]] : [])));
  const status = isDeliveryStatus(chosen.status) ? chosen.status : undefined;
  const deliveries = useQuery(
    `deliveries:${new URLSearchParams(chosen)}`,
    () =>
      must(
        pbs.GET('/admin/v1/webhook-deliveries', {
          params: { query: { limit: 100, status, partner_id: chosen.partner_id, event_type: chosen.event_type } },
        }),
      ),
    5_000,
  );
  const partners = useQuery('partners', () => must(pbs.GET('/admin/v1/partners', { params: { query: { limit: 200 } } })));
  const nameOf = (id: string) => partners.data?.partners.find((p) => p.id === id)?.name ?? id;
  const businessName = useBusinessNames(deliveries.data?.deliveries.map((d) => d.business_id) ?? []);
  const set = (name: string, value: string) => go('webhooks', { ...chosen, [name]: value || undefined });
  return (
    <Page
      title="Webhook deliveries"
      actions={
        <Action
          label="Redeliver all failed"
          run={() => must(pbs.POST('/admin/v1/webhook-deliveries/redeliver-failed', { body: EVER }))}
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
          redeliver={(id) =>
            must(pbs.POST('/admin/v1/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: id } } }))
          }
          businessName={businessName}
          extra={[{ title: 'Partner', cell: (d) => <a href={`#/partners?id=${d.partner_id}`}>{nameOf(d.partner_id)}</a> }]}
        />
      </Card>
    </Page>
  );
}
