import { useState } from 'preact/hooks';
import { must, pbs, type Answer } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import type { Params } from './shared';
import { BusinessPicker } from './business-picker';

type Visit = Answer<'/admin/v1/businesses/{business_id}/waitlist/queue', 'get'>['visits'][number];

/** The restaurant side's moves on a party (docs/waitlist.md). */
const MOVES = {
  notify: (visit_id: string) => pbs.POST('/admin/v1/visits/{visit_id}/notify', { params: { path: { visit_id } } }),
  seat: (visit_id: string) => pbs.POST('/admin/v1/visits/{visit_id}/seat', { params: { path: { visit_id } } }),
  'no-show': (visit_id: string) => pbs.POST('/admin/v1/visits/{visit_id}/no-show', { params: { path: { visit_id } } }),
  arrive: (visit_id: string) => pbs.POST('/admin/v1/visits/{visit_id}/arrive', { params: { path: { visit_id } } }),
};

export function Waitlist(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const path = { business_id: business ?? '' };
  const config = useQuery(business ? `waitlist:${business}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses/{business_id}/waitlist', { params: { path } })),
  );
  const queue = useQuery(
    business ? `queue:${business}` : undefined,
    () => must(pbs.GET('/admin/v1/businesses/{business_id}/waitlist/queue', { params: { path } })),
    5_000,
  );
  const [party, setParty] = useState('2');
  const visitAction = (label: string, move: keyof typeof MOVES, v: Visit) => (
    <Action need="support" label={label} run={() => must(MOVES[move](v.visit_id))} done={queue.reload} />
  );
  return (
    <Page title="Waitlist">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => go('waitlist', { business: id })} label="Restaurant" />
        </div>
        {!business && <p class="muted">Pick a restaurant to see its line.</p>}
        <Problem error={config.error ?? queue.error} />
      </Card>
      {business && config.data && (
        <Card title={`Line (${queue.data?.visits.length ?? '…'} parties)`}>
          <div class="form">
            <Badge value={config.data.manual_state} />
            <Action
              need="support"
              label="Open"
              run={() => must(pbs.POST('/admin/v1/businesses/{business_id}/waitlist/open', { params: { path }, body: {} }))}
              done={config.reload}
            />
            <Action
              need="support"
              label="Close"
              run={() => must(pbs.POST('/admin/v1/businesses/{business_id}/waitlist/close', { params: { path }, body: {} }))}
              done={config.reload}
            />
            <label>
              Party at the door
              <input
                type="number"
                min="1"
                max={config.data.max_party_size}
                value={party}
                onInput={(e) => setParty((e.target as HTMLInputElement).value)}
              />
            </label>
            <Action
              need="support"
              label="Add walk-in"
              kind="primary"
              run={() =>
                must(
                  pbs.POST('/admin/v1/businesses/{business_id}/waitlist/walk-ins', {
                    params: { path },
                    body: { party_size: Number(party) },
                  }),
                )
              }
              done={queue.reload}
            />
          </div>
          <Table
            testId="queue"
            rows={queue.data?.visits}
            empty="Nobody in line."
            columns={[
              { title: 'Ahead', numeric: true, cell: (v) => v.parties_ahead },
              { title: 'Name', cell: (v) => v.name },
              { title: 'Party', numeric: true, cell: (v) => v.party_size },
              { title: 'Type', cell: (v) => v.visit_type },
              { title: 'State', cell: (v) => <Badge value={v.state} /> },
              // With the day: the sandbox clock may have moved days since a party joined.
              { title: 'Joined', cell: (v) => (v.queue_time ? when(new Date(v.queue_time * 1000).toISOString()) : '—') },
              {
                title: 'Expected',
                cell: (v) => (v.expected_seating_time_min ? when(new Date(v.expected_seating_time_min * 1000).toISOString()) : '—'),
              },
              {
                title: '',
                cell: (v) => (
                  <span class="actions">
                    {v.state === 'WAITING' && visitAction('Notify', 'notify', v)}
                    {(v.state === 'WAITING' || v.state === 'NOTIFIED') && visitAction('Seat', 'seat', v)}
                    {v.state === 'NOTIFIED' && visitAction('No-show', 'no-show', v)}
                    {v.state === 'ON_MY_WAY' && visitAction('Arrived', 'arrive', v)}
                  </span>
                ),
              },
            ]}
          />
        </Card>
      )}
    </Page>
  );
}
