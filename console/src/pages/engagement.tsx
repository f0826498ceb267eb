import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, LineChart, Page, Problem, Table, when } from '../ui';
import { shortDay, type Params } from './shared';
import { BusinessPicker } from './business-picker';

/** The three scores, each on its own range (docs/engagement.md): one chart each. */
const METRICS = [
  { key: 'engagement_metric', name: 'engagement', color: '#d32323', max: 20 },
  { key: 'intent_metric', name: 'intent', color: '#2b6cb0', max: 10 },
  { key: 'transaction_metric', name: 'transaction', color: '#23663f', max: 4 },
] as const;

export function Engagement(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const weeks = useQuery('weeks', () => must(pbs.GET('/admin/v1/engagement/weeks', { params: { query: { limit: 52 } } })));
  const scores = useQuery(business ? `engagement:${business}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses/{business_id}/engagement', { params: { path: { business_id: business! } } })),
  );
  const scored = (scores.data?.weeks ?? []).filter((w) => w.scores);
  return (
    <Page title="Engagement">
      <Card title="Scores of a business over the weeks">
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => go('engagement', { business: id })} />
        </div>
        <Problem error={scores.error} />
        {business &&
          scores.data &&
          METRICS.map((m) => (
            <LineChart
              testId={`engagement-chart-${m.key}`}
              labels={scored.map((w) => shortDay(w.week))}
              name={m.name}
              color={m.color}
              max={m.max}
              values={scored.map((w) => w.scores![m.key])}
            />
          ))}
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
                <Action
                  need="admin"
                  label="Score now"
                  run={() => must(pbs.POST('/admin/v1/engagement/weeks/{week}/score', { params: { path: { week: w.week } } }))}
                  done={weeks.reload}
                />
              ),
            },
          ]}
        />
      </Card>
    </Page>
  );
}
