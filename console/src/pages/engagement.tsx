import { api } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, LineChart, Page, Problem, Table, when } from '../ui';
import { shortDay, BusinessPicker, type Params } from './shared';

/** The three scores, each on its own range (docs/engagement.md): one chart each. */
const METRICS = [
  { key: 'engagement_metric', name: 'engagement', color: '#d32323', max: 20 },
  { key: 'intent_metric', name: 'intent', color: '#2b6cb0', max: 10 },
  { key: 'transaction_metric', name: 'transaction', color: '#23663f', max: 4 },
] as const;

export function Engagement(props: Params) {
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
                <Action label="Score now" run={() => api('POST', `/admin/v1/engagement/weeks/${w.week}/score`)} done={weeks.reload} />
              ),
            },
          ]}
        />
      </Card>
    </Page>
  );
}
