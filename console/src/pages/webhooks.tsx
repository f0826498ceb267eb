import { must, pbs } from '../client';
import { DeliveriesTable } from '../deliveries';
import { go, useQuery } from '../hooks';
import { Action, Card, Page, Problem } from '../ui';
import { FilterSelect, PartnerFilter, usePartnerNames, type Params } from './shared';

/** Every failed message, whatever the sandbox clock says (messages are dated on the pbs clock). */
const EVER = { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' };
const FILTERS = ['status', 'partner_id', 'event_type', 'message_id'] as const;
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
          params: {
            query: { limit: 100, status, partner_id: chosen.partner_id, event_type: chosen.event_type, message_id: chosen.message_id },
          },
        }),
      ),
    5_000,
  );
  const nameOf = usePartnerNames();
  const set = (name: string, value: string) => go('webhooks', { ...chosen, [name]: value || undefined });
  return (
    <Page
      title="Webhook deliveries"
      actions={
        <Action
          need="support"
          label="Redeliver all failed"
          run={() => must(pbs.POST('/admin/v1/webhook-deliveries/redeliver-failed', { body: EVER }))}
          done={deliveries.reload}
        />
      }
    >
      <Card wide>
        <div class="form">
          <FilterSelect
            label="Status"
            name="status"
            value={chosen.status}
            choices={STATUSES.map((x) => [x, x] as const)}
            onChange={(value) => set('status', value)}
          />
          <PartnerFilter value={chosen.partner_id} onChange={(id) => set('partner_id', id)} />
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
          need="support"
          rows={deliveries.data?.deliveries}
          empty="No delivery."
          reload={deliveries.reload}
          redeliver={(id) =>
            must(pbs.POST('/admin/v1/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: id } } }))
          }
          detail={(id) => must(pbs.GET('/admin/v1/webhook-deliveries/{delivery_id}', { params: { path: { delivery_id: id } } }))}
          extra={[{ title: 'Partner', cell: (d) => <a href={`#/partners?id=${d.partner_id}`}>{nameOf(d.partner_id)}</a> }]}
        />
      </Card>
    </Page>
  );
}
