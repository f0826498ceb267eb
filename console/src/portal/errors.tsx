import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { ErrorGroups } from '../request-log';
import { Card, Page, Problem } from '../ui';
import type { Params } from '../pages/shared';
import { PERIODS, periodQuery } from './period';

/** Your errors over a period, grouped by code and operation, each with what the rule behind it is and what to do. */
export function PortalErrors(props: Params) {
  const period = props.params.get('period') ?? '24h';
  const from = periodQuery(period).from;
  const errors = useQuery(
    `errors:${from ?? ''}`,
    () => must(pbs.GET('/portal/v1/request-log/errors', { params: { query: { from } } })),
    10_000,
  );
  return (
    <Page title="Your errors">
      <Card>
        <form class="form" onSubmit={(e) => e.preventDefault()}>
          <label>
            period
            <select name="period" value={period} onChange={(e) => go('errors', { period: (e.target as HTMLSelectElement).value || 'all' })}>
              {PERIODS.map((p) => (
                <option value={p.value || 'all'}>{p.label}</option>
              ))}
            </select>
          </label>
        </form>
        <Problem error={errors.error} />
        <ErrorGroups
          rows={errors.data?.errors}
          codeLink={(g) => `#/requests?${new URLSearchParams({ error_code: g.error_code, operation: g.operation })}`}
        />
      </Card>
    </Page>
  );
}
