import { useState } from 'preact/hooks';
import { api } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import { BusinessPicker, type Params } from './shared';

interface Visit {
  visit_id: string;
  state: string;
  party_size: number;
  name: string;
  phone: string | null;
  visit_type: string;
  queue_time: number;
  parties_ahead: number;
  expected_seating_time_min: number | null;
}

export function Waitlist(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const config = useGet<{ manual_state: string; max_party_size: number; pace: { interval_minutes: number } }>(
    business ? `/admin/v1/businesses/${business}/waitlist` : undefined,
  );
  const queue = useGet<{ visits: Visit[] }>(business ? `/admin/v1/businesses/${business}/waitlist/queue` : undefined, 5_000);
  const [party, setParty] = useState('2');
  const visitAction = (label: string, path: string, v: Visit) => (
    <Action label={label} run={() => api('POST', `/admin/v1/visits/${v.visit_id}/${path}`)} done={queue.reload} />
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
            <Action label="Open" run={() => api('POST', `/admin/v1/businesses/${business}/waitlist/open`)} done={config.reload} />
            <Action label="Close" run={() => api('POST', `/admin/v1/businesses/${business}/waitlist/close`, {})} done={config.reload} />
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
              label="Add walk-in"
              kind="primary"
              run={() => api('POST', `/admin/v1/businesses/${business}/waitlist/walk-ins`, { party_size: Number(party) })}
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
              { title: 'Joined', cell: (v) => when(new Date(v.queue_time * 1000).toISOString()) },
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
