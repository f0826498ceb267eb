import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Loading, Page, Problem, Table, when } from '../ui';
import { today, usePartnerNames, type Params } from './shared';
import { BusinessPicker } from './business-picker';

export function Reservations(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const date = props.params.get('date') ?? today();
  const partnerName = usePartnerNames();
  const partner = (id: string) => <a href={`#/partners?id=${id}`}>{partnerName(id)}</a>;
  const sheet = useQuery(
    business ? `sheet:${business}:${date}` : undefined,
    () =>
      must(pbs.GET('/admin/v1/businesses/{business_id}/reservations', { params: { path: { business_id: business! }, query: { date } } })),
    5_000,
  );
  return (
    <Page title="Reservations">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => go('reservations', { business: id, date })} label="Restaurant" />
          <label>
            Day
            <input
              type="date"
              name="date"
              value={date}
              onChange={(e) => go('reservations', { business, date: (e.target as HTMLInputElement).value })}
            />
          </label>
          <button onClick={sheet.reload}>Refresh</button>
        </div>
        {!business && <p class="muted">Pick a restaurant to see its day.</p>}
        <Problem error={sheet.error} />
        <Loading when={sheet.loading && !sheet.data} />
      </Card>
      {business && sheet.data && (
        <div class="grid">
          <Card title={`Reservations on ${date} (${sheet.data.reservations.length})`} wide>
            <Table
              testId="reservations"
              rows={sheet.data.reservations}
              empty="No reservation that day."
              columns={[
                { title: 'Time', cell: (r) => r.time },
                { title: 'Covers', numeric: true, cell: (r) => r.covers },
                { title: 'Guest', cell: (r) => `${r.first_name} ${r.last_name}` },
                { title: 'Phone', cell: (r) => r.phone },
                { title: 'Table', cell: (r) => r.table_name ?? '—' },
                { title: 'Partner', cell: (r) => partner(r.partner_id) },
                { title: 'Status', cell: (r) => <Badge value={r.status} /> },
                { title: 'Id', cell: (r) => <code>{r.id}</code> },
                {
                  title: '',
                  cell: (r) =>
                    r.status === 'active' ? (
                      <Action
                        need="support"
                        label="Cancel (restaurant)"
                        kind="danger"
                        run={() =>
                          must(pbs.POST('/admin/v1/reservations/{reservation_id}/cancel', { params: { path: { reservation_id: r.id } } }))
                        }
                        done={sheet.reload}
                      />
                    ) : (
                      r.canceled_by
                    ),
                },
              ]}
            />
          </Card>
          <Card title={`Live holds (${sheet.data.holds.length})`} wide>
            <Table
              testId="holds"
              rows={sheet.data.holds}
              empty="No live hold."
              columns={[
                { title: 'Time', cell: (h) => h.time },
                { title: 'Covers', numeric: true, cell: (h) => h.covers },
                { title: 'Table', cell: (h) => h.table_name ?? '—' },
                { title: 'Partner', cell: (h) => partner(h.partner_id) },
                { title: 'Device', cell: (h) => h.unique_id },
                { title: 'Expires', cell: (h) => when(h.expires_at) },
              ]}
            />
          </Card>
        </div>
      )}
    </Page>
  );
}
