import type { FunctionComponent } from 'preact';
import { useState } from 'preact/hooks';
import { api } from './api';
import { go, useGet } from './hooks';
import { Action, Badge, BarChart, Card, LineChart, Loading, Page, Pager, Problem, Table, when } from './ui';

type Params = { params: URLSearchParams };
type PageDef = { id: string; title: string; component: FunctionComponent<Params> };

const today = () => new Date().toISOString().slice(0, 10);
const shortDay = (date: string) => date.slice(5);
const shortMinute = (iso: string) => iso.slice(11, 16);

/** Picks a business: type a name (suggested from the catalogue) or paste an id; `onPick` gets the id. */
function BusinessPicker(props: { value: string | undefined; onPick: (id: string) => void; label?: string }) {
  const list = useGet<{ businesses: Array<{ id: string; name: string; location: { city: string } }> }>('/admin/v1/businesses?limit=200');
  const [text, setText] = useState(props.value ?? '');
  const options = list.data?.businesses ?? [];
  const pick = (value: string) => {
    const match = options.find((b) => b.id === value || `${b.name} (${b.location.city})` === value);
    props.onPick(match?.id ?? value.trim());
  };
  return (
    <label>
      {props.label ?? 'Business'}
      <input
        list="businesses"
        name="business"
        size={36}
        placeholder="name or id"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onChange={(e) => pick((e.target as HTMLInputElement).value)}
      />
      <datalist id="businesses">
        {options.map((b) => (
          <option value={`${b.name} (${b.location.city})`}>{b.id}</option>
        ))}
      </datalist>
    </label>
  );
}

function Overview() {
  const perDay = useGet<{ days: Array<{ date: string; made: number; canceled: number }> }>(
    '/admin/v1/reservations/per-day?days=14',
    15_000,
  );
  const perMinute = useGet<{ minutes: Array<{ minute: string; succeeded: number; failed: number }> }>(
    '/admin/v1/webhook-deliveries/per-minute?minutes=60',
    15_000,
  );
  const partners = useGet<{ total: number }>('/admin/v1/partners?limit=1');
  const businesses = useGet<{ total: number }>('/admin/v1/businesses?limit=1');
  const dead = useGet<{ tasks: unknown[] }>('/admin/v1/tasks?state=dead&limit=100');
  const failed = useGet<{ deliveries: unknown[] }>('/admin/v1/webhook-deliveries?status=failed&limit=500');
  const clock = useGet<{ now: string; frozen: boolean; sandbox: boolean }>('/admin/v1/clock', 5_000);
  const days = perDay.data?.days ?? [];
  const minutes = perMinute.data?.minutes ?? [];
  return (
    <Page title="Overview">
      <div class="grid">
        <Card title="Partners">
          <div class="stat">{partners.data?.total ?? '…'}</div>
        </Card>
        <Card title="Businesses">
          <div class="stat">{businesses.data?.total ?? '…'}</div>
        </Card>
        <Card title="Dead tasks">
          <div class="stat">
            <a href="#/tasks?state=dead">{dead.data?.tasks.length ?? '…'}</a>
          </div>
        </Card>
        <Card title="Failed deliveries">
          <div class="stat">
            <a href="#/webhooks?status=failed">{failed.data?.deliveries.length ?? '…'}</a>
          </div>
        </Card>
        <Card title="Clock">
          <div data-testid="overview-clock">{clock.data ? `${when(clock.data.now)}${clock.data.frozen ? ' (frozen)' : ''}` : '…'}</div>
        </Card>
        <Card title="Bookings per day (last 14 days)" wide>
          <Problem error={perDay.error} />
          <BarChart
            testId="bookings-chart"
            labels={days.map((d) => shortDay(d.date))}
            series={[
              { name: 'kept', color: '#2f855a', values: days.map((d) => d.made - d.canceled) },
              { name: 'canceled', color: '#c53030', values: days.map((d) => d.canceled) },
            ]}
          />
        </Card>
        <Card title="Webhook deliveries per minute (last hour)" wide>
          <Problem error={perMinute.error} />
          <BarChart
            testId="deliveries-chart"
            labels={minutes.map((m) => shortMinute(m.minute))}
            series={[
              { name: 'answered 2xx', color: '#2b6cb0', values: minutes.map((m) => m.succeeded) },
              { name: 'failed attempts', color: '#c53030', values: minutes.map((m) => m.failed) },
            ]}
            labelEvery={10}
          />
        </Card>
      </div>
    </Page>
  );
}

interface Partner {
  id: string;
  name: string;
  status: string;
  created_at: string;
  interfaces: Record<string, { enabled: boolean; per_second: number | null; per_day: number | null }>;
}

function Partners(props: Params) {
  const [offset, setOffset] = useState(0);
  const list = useGet<{ total: number; partners: Partner[] }>(`/admin/v1/partners?limit=50&offset=${offset}`);
  const selected = props.params.get('id') ?? undefined;
  const [name, setName] = useState('');
  return (
    <Page title="Partners">
      <Card>
        <div class="form">
          <label>
            New partner
            <input name="partner-name" placeholder="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <Action
            label="Create"
            kind="primary"
            run={async () => go('partners', { id: (await api<Partner>('POST', '/admin/v1/partners', { name })).id })}
            done={() => (setName(''), list.reload())}
          />
        </div>
        <Problem error={list.error} />
        <Table
          testId="partners"
          rows={list.data?.partners}
          columns={[
            { title: 'Name', cell: (p) => <a href={`#/partners?id=${p.id}`}>{p.name}</a> },
            { title: 'Status', cell: (p) => <Badge value={p.status} /> },
            {
              title: 'Interfaces',
              cell: (p) =>
                Object.entries(p.interfaces)
                  .filter(([, v]) => v.enabled)
                  .map(([k]) => k)
                  .join(', ') || '—',
            },
            { title: 'Created', cell: (p) => when(p.created_at) },
          ]}
        />
        <Pager offset={offset} limit={50} total={list.data?.total} onChange={setOffset} />
      </Card>
      {selected && <PartnerDetail id={selected} onChange={list.reload} />}
    </Page>
  );
}

function PartnerDetail(props: { id: string; onChange: () => void }) {
  const partner = useGet<Partner>(`/admin/v1/partners/${props.id}`);
  const credentials = useGet<{
    credentials: Array<{
      id: string;
      kind: string;
      label: string | null;
      public_id: string;
      created_at: string;
      revoked_at: string | null;
    }>;
  }>(`/admin/v1/partners/${props.id}/credentials`);
  const [linkOffset, setLinkOffset] = useState(0);
  const links = useGet<{ total: number; businesses: Array<{ business_id: string; name: string; alias: string; linked_at: string }> }>(
    `/admin/v1/partners/${props.id}/businesses?limit=10&offset=${linkOffset}`,
  );
  const webhook = useGet<{ url: string; status: string; event_types: string[] }>(`/admin/v1/partners/${props.id}/webhook`);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const p = partner.data;
  const reload = () => (partner.reload(), credentials.reload(), props.onChange());
  return (
    <div class="grid">
      <Card title={p ? `${p.name} — ${p.id}` : 'Partner'} wide>
        <Problem error={partner.error} />
        {p && (
          <>
            <div class="actions">
              <Badge value={p.status} />
              {p.status === 'active' ? (
                <Action label="Disable" kind="danger" run={() => api('POST', `/admin/v1/partners/${p.id}/disable`)} done={reload} />
              ) : (
                <Action label="Enable" run={() => api('POST', `/admin/v1/partners/${p.id}/enable`)} done={reload} />
              )}
            </div>
            <Table
              rows={Object.entries(p.interfaces)}
              columns={[
                { title: 'Interface', cell: ([k]) => k },
                { title: 'Enabled', cell: ([, v]) => (v.enabled ? 'yes' : 'no') },
                { title: 'Per second', numeric: true, cell: ([, v]) => v.per_second ?? 'default' },
                { title: 'Per day', numeric: true, cell: ([, v]) => v.per_day ?? 'default' },
                {
                  title: '',
                  cell: ([k, v]) => (
                    <Action
                      label={v.enabled ? 'Disable' : 'Enable'}
                      run={() => api('PUT', `/admin/v1/partners/${p.id}/interfaces/${k}`, { enabled: !v.enabled })}
                      done={reload}
                    />
                  ),
                },
              ]}
            />
          </>
        )}
      </Card>
      <Card title="Credentials" wide>
        <div class="actions">
          {['api_key', 'basic', 'oauth_client'].map((kind) => (
            <Action
              label={`Issue ${kind}`}
              run={async () =>
                setSecret(JSON.stringify(await api('POST', `/admin/v1/partners/${props.id}/credentials`, { kind }), null, 2))
              }
              done={credentials.reload}
            />
          ))}
        </div>
        {secret && (
          <p class="secret">
            Shown once: <code>{secret}</code>
          </p>
        )}
        <Table
          rows={credentials.data?.credentials}
          columns={[
            { title: 'Kind', cell: (c) => c.kind },
            { title: 'Public id', cell: (c) => <code>{c.public_id}</code> },
            { title: 'Created', cell: (c) => when(c.created_at) },
            { title: 'State', cell: (c) => <Badge value={c.revoked_at ? 'revoked' : 'active'} /> },
            {
              title: '',
              cell: (c) =>
                c.revoked_at ? null : (
                  <Action
                    label="Revoke"
                    kind="danger"
                    run={() => api('DELETE', `/admin/v1/credentials/${c.id}`)}
                    done={credentials.reload}
                  />
                ),
            },
          ]}
        />
      </Card>
      <Card title={`Linked businesses (${links.data?.total ?? '…'})`}>
        <Table
          rows={links.data?.businesses}
          columns={[
            { title: 'Business', cell: (b) => <a href={`#/businesses?id=${b.business_id}`}>{b.name}</a> },
            { title: 'Linked', cell: (b) => when(b.linked_at) },
          ]}
          empty="No business linked."
        />
        <Pager offset={linkOffset} limit={10} total={links.data?.total} onChange={setLinkOffset} />
      </Card>
      <Card title="Webhook endpoint">
        {webhook.data ? (
          <p>
            <code>{webhook.data.url}</code> <Badge value={webhook.data.status} />
          </p>
        ) : (
          <p class="muted">None registered.</p>
        )}
      </Card>
    </div>
  );
}

interface Business {
  id: string;
  alias: string;
  name: string;
  location: { city: string; country: string };
  categories: Array<{ title: string }>;
  rating: number;
  review_count: number;
  transactions: string[];
}

function Businesses(props: Params) {
  const [offset, setOffset] = useState(0);
  const [city, setCity] = useState('');
  const list = useGet<{ total: number; businesses: Business[] }>(
    `/admin/v1/businesses?limit=50&offset=${offset}${city ? `&city=${encodeURIComponent(city)}` : ''}`,
  );
  const selected = props.params.get('id') ?? undefined;
  return (
    <Page title="Businesses">
      <Card>
        <div class="form">
          <label>
            City
            <input value={city} onChange={(e) => (setCity((e.target as HTMLInputElement).value), setOffset(0))} placeholder="any" />
          </label>
          <a href="#/imports">Import businesses…</a>
        </div>
        <Problem error={list.error} />
        <Table
          testId="businesses"
          rows={list.data?.businesses}
          columns={[
            { title: 'Name', cell: (b) => <a href={`#/businesses?id=${b.id}`}>{b.name}</a> },
            { title: 'City', cell: (b) => `${b.location.city}, ${b.location.country}` },
            { title: 'Categories', cell: (b) => b.categories.map((c) => c.title).join(', ') },
            { title: 'Rating', numeric: true, cell: (b) => `${b.rating} (${b.review_count})` },
            { title: 'Reservations', cell: (b) => (b.transactions.includes('restaurant_reservation') ? 'yes' : '') },
          ]}
        />
        <Pager offset={offset} limit={50} total={list.data?.total} onChange={setOffset} />
      </Card>
      {selected && <BusinessDetail id={selected} />}
    </Page>
  );
}

function BusinessDetail(props: { id: string }) {
  const business = useGet<Business>(`/admin/v1/businesses/${props.id}`);
  const settings = useGet<unknown>(`/admin/v1/businesses/${props.id}/reservation-settings`);
  const b = business.data;
  return (
    <div class="grid">
      <Card title={b ? `${b.name} — ${b.id}` : 'Business'} wide>
        <Problem error={business.error} />
        {b && (
          <div class="actions">
            <a href={`#/reservations?business=${b.id}&date=${today()}`}>Reservations</a>
            <a href={`#/waitlist?business=${b.id}`}>Waitlist</a>
            <a href={`#/reviews?business=${b.id}`}>Reviews</a>
            <a href={`#/engagement?business=${b.id}`}>Engagement</a>
            <a href={`#/advertising?business=${b.id}`}>Advertising</a>
          </div>
        )}
      </Card>
      <Card title="Reservation inventory" wide>
        {settings.error ? <p class="muted">No reservation inventory.</p> : <pre>{JSON.stringify(settings.data, null, 2)}</pre>}
      </Card>
    </div>
  );
}

interface Reservation {
  id: string;
  partner_id: string | null;
  time: string;
  covers: number;
  first_name: string;
  last_name: string;
  phone: string;
  email: string;
  status: string;
  canceled_by: string | null;
  table_name: string | null;
  created_at: string;
}

function Reservations(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const date = props.params.get('date') ?? today();
  const sheet = useGet<{
    reservations: Reservation[];
    holds: Array<{ id: string; time: string; covers: number; table_name: string | null; expires_at: string; unique_id: string }>;
  }>(business ? `/admin/v1/businesses/${business}/reservations?date=${date}` : undefined, 5_000);
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
                { title: 'Status', cell: (r) => <Badge value={r.status} /> },
                { title: 'Id', cell: (r) => <code>{r.id}</code> },
                {
                  title: '',
                  cell: (r) =>
                    r.status === 'active' ? (
                      <Action
                        label="Cancel (restaurant)"
                        kind="danger"
                        run={() => api('POST', `/admin/v1/reservations/${r.id}/cancel`)}
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

function Advertising(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const programs = useGet<{
    programs: Array<{
      program_id: string;
      program_type: string;
      yelp_business_id: string;
      partner_id: string;
      state: string;
      start_date: string;
      program_metrics: { budget: number; ad_cost: number; billed_clicks: number };
    }>;
  }>(`/admin/v1/advertising/programs?limit=100${business ? `&business_id=${business}` : ''}`);
  const jobs = useGet<{
    jobs: Array<{
      job_id: string;
      kind: string;
      status: string;
      held: boolean;
      partner_id: string;
      created_at: string;
      completed_at: string | null;
    }>;
  }>('/admin/v1/advertising/jobs?limit=50', 5_000);
  const settings = useGet<{ hold_new_jobs: boolean }>('/admin/v1/advertising/settings');
  return (
    <Page
      title="Advertising"
      actions={
        settings.data && (
          <Action
            label={settings.data.hold_new_jobs ? 'Stop holding new jobs' : 'Hold new jobs'}
            run={() => api('PUT', '/admin/v1/advertising/settings', { hold_new_jobs: !settings.data!.hold_new_jobs })}
            done={settings.reload}
          />
        )
      }
    >
      <Card title="Jobs (newest first)">
        <Problem error={jobs.error} />
        <Table
          testId="jobs"
          rows={jobs.data?.jobs}
          empty="No job yet."
          columns={[
            { title: 'Job', cell: (j) => <code>{j.job_id}</code> },
            { title: 'Kind', cell: (j) => j.kind },
            { title: 'Status', cell: (j) => <Badge value={j.held ? 'held' : j.status} /> },
            { title: 'Created', cell: (j) => when(j.created_at) },
            {
              title: '',
              cell: (j) =>
                j.status === 'PROCESSING' ? (
                  <span class="actions">
                    {j.held ? (
                      <Action
                        label="Release"
                        run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/release`)}
                        done={jobs.reload}
                      />
                    ) : (
                      <Action label="Hold" run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/hold`)} done={jobs.reload} />
                    )}
                    <Action
                      label="Complete now"
                      run={() => api('POST', `/admin/v1/advertising/jobs/${j.job_id}/complete`)}
                      done={() => (jobs.reload(), programs.reload())}
                    />
                  </span>
                ) : null,
            },
          ]}
        />
      </Card>
      <Card title={`Programs${business ? ' of the business' : ''}`}>
        <Problem error={programs.error} />
        <Table
          testId="programs"
          rows={programs.data?.programs}
          empty="No program yet."
          columns={[
            { title: 'Program', cell: (p) => <code>{p.program_id}</code> },
            { title: 'Type', cell: (p) => p.program_type },
            { title: 'Business', cell: (p) => <a href={`#/businesses?id=${p.yelp_business_id}`}>{p.yelp_business_id}</a> },
            { title: 'State', cell: (p) => <Badge value={p.state} /> },
            { title: 'Budget', numeric: true, cell: (p) => (p.program_metrics.budget / 100).toFixed(2) },
            { title: 'Spent', numeric: true, cell: (p) => (p.program_metrics.ad_cost / 100).toFixed(2) },
            { title: 'Clicks', numeric: true, cell: (p) => p.program_metrics.billed_clicks },
          ]}
        />
      </Card>
    </Page>
  );
}

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

function Waitlist(props: Params) {
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
              { title: 'Joined', cell: (v) => new Date(v.queue_time * 1000).toLocaleTimeString() },
              {
                title: 'Expected',
                cell: (v) => (v.expected_seating_time_min ? new Date(v.expected_seating_time_min * 1000).toLocaleTimeString() : '—'),
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

function Reviews(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const [offset, setOffset] = useState(0);
  const reviews = useGet<{
    total: number;
    reviews: Array<{
      id: string;
      rating: number;
      text: Record<string, string>;
      user: { name: string };
      time_created: string;
      public_response: { text: string } | null;
    }>;
  }>(business ? `/admin/v1/businesses/${business}/reviews?limit=20&offset=${offset}` : undefined);
  return (
    <Page title="Reviews">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => (setOffset(0), go('reviews', { business: id }))} />
          <a href="#/imports">Import reviews…</a>
        </div>
        {!business && <p class="muted">Pick a business to see its reviews.</p>}
        <Problem error={reviews.error} />
        <Table
          testId="reviews"
          rows={reviews.data?.reviews}
          empty="No review."
          columns={[
            { title: 'Rating', numeric: true, cell: (r) => '★'.repeat(r.rating) },
            { title: 'Text', cell: (r) => Object.entries(r.text).map(([locale, text]) => <div>{`${locale}: ${text}`}</div>) },
            { title: 'By', cell: (r) => r.user.name },
            { title: 'Written', cell: (r) => when(r.time_created) },
            { title: 'Response', cell: (r) => r.public_response?.text ?? '—' },
            {
              title: '',
              cell: (r) => (
                <Action label="Remove" kind="danger" run={() => api('DELETE', `/admin/v1/reviews/${r.id}`)} done={reviews.reload} />
              ),
            },
          ]}
        />
        <Pager offset={offset} limit={20} total={reviews.data?.total} onChange={setOffset} />
      </Card>
    </Page>
  );
}

function Engagement(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const weeks = useGet<{
    weeks: Array<{ week: string; scored: boolean; scored_at: string | null; businesses_scored: number; changed_at: string }>;
  }>('/admin/v1/engagement/weeks?limit=52');
  const scores = useGet<{
    weeks: Array<{ week: string; scores: { engagement_metric: number; intent_metric: number; transaction_metric: number } | null }>;
  }>(business ? `/admin/v1/businesses/${business}/engagement` : undefined);
  const scored = (scores.data?.weeks ?? []).filter((w) => w.scores);
  return (
    <Page title="Engagement">
      <Card title="Scores of a business over the weeks">
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => go('engagement', { business: id })} />
        </div>
        <Problem error={scores.error} />
        {business && scores.data && (
          <LineChart
            testId="engagement-chart"
            labels={scored.map((w) => shortDay(w.week))}
            series={[
              { name: 'engagement', color: '#d32323', max: 20, values: scored.map((w) => w.scores!.engagement_metric) },
              { name: 'intent', color: '#2b6cb0', max: 10, values: scored.map((w) => w.scores!.intent_metric) },
              { name: 'transaction', color: '#2f855a', max: 4, values: scored.map((w) => w.scores!.transaction_metric) },
            ]}
          />
        )}
      </Card>
      <Card title="Weeks">
        <Problem error={weeks.error} />
        <Table
          testId="weeks"
          rows={weeks.data?.weeks}
          empty="No activity loaded yet."
          columns={[
            { title: 'Week of', cell: (w) => w.week },
            { title: 'State', cell: (w) => <Badge value={w.scored ? 'scored' : 'pending'} /> },
            { title: 'Businesses scored', numeric: true, cell: (w) => w.businesses_scored },
            { title: 'Scored', cell: (w) => when(w.scored_at) },
            {
              title: '',
              cell: (w) => (
                <Action label="Score now" run={() => api('POST', `/admin/v1/engagement/weeks/${w.week}/score`)} done={weeks.reload} />
              ),
            },
          ]}
        />
      </Card>
    </Page>
  );
}

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

function Webhooks(props: Params) {
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

function Tasks(props: Params) {
  const state = props.params.get('state') ?? '';
  const tasks = useGet<{
    tasks: Array<{
      id: string;
      type: string;
      state: string;
      attempts: number;
      max_attempts: number;
      run_at: string;
      last_error: string | null;
      payload: unknown;
    }>;
  }>(`/admin/v1/tasks?limit=100${state ? `&state=${state}` : ''}`, 5_000);
  return (
    <Page title="Background tasks">
      <Card>
        <div class="form">
          <label>
            State
            <select name="state" value={state} onChange={(e) => go('tasks', { state: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {['pending', 'running', 'succeeded', 'dead'].map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </label>
        </div>
        <Problem error={tasks.error} />
        <Table
          testId="tasks"
          rows={tasks.data?.tasks}
          empty="No task."
          columns={[
            { title: 'Type', cell: (t) => t.type },
            { title: 'State', cell: (t) => <Badge value={t.state} /> },
            { title: 'Attempts', numeric: true, cell: (t) => `${t.attempts}/${t.max_attempts}` },
            { title: 'Run at', cell: (t) => when(t.run_at) },
            { title: 'Payload', cell: (t) => <code>{JSON.stringify(t.payload)}</code> },
            { title: 'Last error', cell: (t) => t.last_error ?? '' },
            {
              title: '',
              cell: (t) =>
                t.state === 'dead' ? (
                  <Action label="Retry" run={() => api('POST', `/admin/v1/tasks/${t.id}/retry`)} done={tasks.reload} />
                ) : null,
            },
          ]}
        />
      </Card>
    </Page>
  );
}

function Clock() {
  const clock = useGet<{ now: string; frozen: boolean; sandbox: boolean }>('/admin/v1/clock', 1_000);
  const [minutes, setMinutes] = useState('60');
  const [time, setTime] = useState('');
  const c = clock.data;
  return (
    <Page title="Sandbox clock">
      <Card>
        <Problem error={clock.error} />
        {c && (
          <>
            <p class="stat" data-testid="clock-now">
              {c.now}
            </p>
            <p class="muted">
              {when(c.now)} · {c.frozen ? 'frozen' : 'running'} ·{' '}
              {c.sandbox ? 'sandbox: the clock can be moved' : 'production: the clock follows real time'}
            </p>
            {c.sandbox && (
              <>
                <div class="form">
                  <label>
                    Minutes
                    <input
                      name="minutes"
                      type="number"
                      min="1"
                      value={minutes}
                      onInput={(e) => setMinutes((e.target as HTMLInputElement).value)}
                    />
                  </label>
                  <Action
                    label="Advance"
                    kind="primary"
                    testId="advance"
                    run={() => api('POST', '/admin/v1/clock/advance', { minutes: Number(minutes) })}
                    done={clock.reload}
                  />
                  <Action
                    label={c.frozen ? 'Unfreeze' : 'Freeze'}
                    run={() => api('PUT', '/admin/v1/clock', { frozen: !c.frozen })}
                    done={clock.reload}
                  />
                  <Action label="Back to real time" run={() => api('PUT', '/admin/v1/clock', { reset: true })} done={clock.reload} />
                </div>
                <div class="form">
                  <label>
                    Set to (ISO 8601)
                    <input
                      name="time"
                      placeholder="2031-05-05T16:00:00Z"
                      value={time}
                      onInput={(e) => setTime((e.target as HTMLInputElement).value)}
                    />
                  </label>
                  <Action label="Set" run={() => api('PUT', '/admin/v1/clock', { time })} done={clock.reload} />
                </div>
              </>
            )}
          </>
        )}
      </Card>
    </Page>
  );
}

const IMPORTS = {
  businesses: { path: '/admin/v1/businesses/import', hint: 'one business per line, as POST /admin/v1/businesses takes it' },
  reviews: { path: '/admin/v1/reviews/import', hint: 'one review per line, each with its business_id' },
  engagement: { path: '/admin/v1/engagement/activity', hint: 'one business-week of activity per line' },
  'reservation settings': { path: '/admin/v1/reservation-settings/import', hint: 'one {"business_id", "settings"} per line' },
} as const;

/** Imports JSON lines in batches, so a large file shows its progress (each batch is all or nothing). */
function Imports() {
  const [kind, setKind] = useState<keyof typeof IMPORTS>('businesses');
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>(undefined);
  const [result, setResult] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [file, setFile] = useState<File | undefined>(undefined);
  const BATCH = 500;
  const run = async () => {
    if (!file) return;
    setError(undefined);
    setResult(undefined);
    const lines = (await file.text()).split('\n').filter((line) => line.trim() !== '');
    const totals: Record<string, number> = {};
    setProgress({ done: 0, total: lines.length });
    try {
      for (let i = 0; i < lines.length; i += BATCH) {
        const answer = await api<Record<string, unknown>>(
          'POST',
          IMPORTS[kind].path,
          lines.slice(i, i + BATCH).join('\n'),
          'application/x-ndjson',
        );
        for (const [k, v] of Object.entries(answer)) if (typeof v === 'number') totals[k] = (totals[k] ?? 0) + v;
        setProgress({ done: Math.min(lines.length, i + BATCH), total: lines.length });
      }
      setResult(JSON.stringify(totals));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page title="Imports">
      <Card>
        <div class="form">
          <label>
            What
            <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as keyof typeof IMPORTS)}>
              {Object.keys(IMPORTS).map((k) => (
                <option value={k}>{k}</option>
              ))}
            </select>
          </label>
          <label>
            JSON lines file
            <input
              type="file"
              name="file"
              accept=".jsonl,.ndjson,.json,.txt"
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])}
            />
          </label>
          <Action label="Import" kind="primary" testId="import" run={run} />
        </div>
        <p class="muted">
          {IMPORTS[kind].hint}; sent {BATCH} lines at a time (each batch is checked whole before any of it is stored).
        </p>
        {progress && (
          <p>
            <progress value={progress.done} max={progress.total} data-testid="import-progress" /> {progress.done} / {progress.total} lines
          </p>
        )}
        {result && <p data-testid="import-result">Imported: {result}</p>}
        <Problem error={error} />
      </Card>
    </Page>
  );
}

export const pages: PageDef[] = [
  { id: 'overview', title: 'Overview', component: Overview },
  { id: 'partners', title: 'Partners', component: Partners },
  { id: 'businesses', title: 'Businesses', component: Businesses },
  { id: 'reservations', title: 'Reservations', component: Reservations },
  { id: 'advertising', title: 'Advertising', component: Advertising },
  { id: 'waitlist', title: 'Waitlist', component: Waitlist },
  { id: 'reviews', title: 'Reviews', component: Reviews },
  { id: 'engagement', title: 'Engagement', component: Engagement },
  { id: 'webhooks', title: 'Webhooks', component: Webhooks },
  { id: 'tasks', title: 'Tasks', component: Tasks },
  { id: 'clock', title: 'Clock', component: Clock },
  { id: 'imports', title: 'Imports', component: Imports },
];
