import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { BarChart, Card, Page, Problem, when } from '../ui';
import { shortDay, shortMinute } from './shared';

export function Overview() {
  const perDay = useQuery('per-day', () => must(pbs.GET('/admin/v1/reservations/per-day', { params: { query: { days: 14 } } })), 15_000);
  const perMinute = useQuery(
    'per-minute',
    () => must(pbs.GET('/admin/v1/webhook-deliveries/per-minute', { params: { query: { minutes: 60 } } })),
    15_000,
  );
  const partners = useQuery('partners', () => must(pbs.GET('/admin/v1/partners', { params: { query: { limit: 1 } } })));
  const businesses = useQuery('businesses', () => must(pbs.GET('/admin/v1/businesses', { params: { query: { limit: 1 } } })));
  const dead = useQuery('dead', () => must(pbs.GET('/admin/v1/tasks', { params: { query: { state: 'dead', limit: 100 } } })));
  const failed = useQuery('failed', () =>
    must(pbs.GET('/admin/v1/webhook-deliveries', { params: { query: { status: 'failed', limit: 500 } } })),
  );
  const clock = useQuery('clock', () => must(pbs.GET('/admin/v1/clock')), 5_000);
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
