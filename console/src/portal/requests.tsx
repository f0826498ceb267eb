import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { RequestDetail, RequestTable } from '../request-log';
import { Card, Page, Problem } from '../ui';
import type { Params } from '../pages/shared';
import { PERIODS, periodQuery } from './period';

const TEXT_FILTERS = ['operation', 'error_code', 'request_id', 'idempotency_key'] as const;
const STATUS_CLASSES = ['', '2xx', '4xx', '5xx'];

/** Your requests as pbs received and answered them (docs/request-log.md), filtered; one opened whole with the events it caused. */
export function PortalRequests(props: Params) {
  const chosen = Object.fromEntries(
    ['status', 'period', 'entry', ...TEXT_FILTERS].flatMap((name) => {
      const value = props.params.get(name);
      return value ? [[name, value]] : [];
    }),
  );
  const { period, entry, ...filters } = chosen;
  const query = new URLSearchParams({ limit: '100', ...filters, ...periodQuery(period ?? null) });
  const entries = useQuery(
    `log:${query}`,
    () => must(pbs.GET('/portal/v1/request-log', { params: { query: { limit: 100, ...filters, ...periodQuery(period ?? null) } } })),
    5_000,
  );
  const whole = useQuery(entry ? `entry:${entry}` : undefined, () =>
    must(pbs.GET('/portal/v1/request-log/{entry_id}', { params: { path: { entry_id: Number(entry) } } })),
  );
  const set = (name: string, value: string | undefined) => go('requests', { ...chosen, entry: undefined, [name]: value || undefined });
  return (
    <Page title="Your requests">
      <Card>
        <form class="form" onSubmit={(e) => e.preventDefault()}>
          <label>
            period
            <select name="period" value={period ?? ''} onChange={(e) => set('period', (e.target as HTMLSelectElement).value)}>
              {PERIODS.map((p) => (
                <option value={p.value}>{p.label}</option>
              ))}
            </select>
          </label>
          <label>
            status
            <select name="status" value={chosen.status ?? ''} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
              {STATUS_CLASSES.map((s) => (
                <option value={s}>{s || 'any'}</option>
              ))}
            </select>
          </label>
          {TEXT_FILTERS.map((name) => (
            <label>
              {name.replace('_', ' ')}
              <input
                name={name}
                size={name === 'operation' ? 36 : 18}
                placeholder={name === 'operation' ? 'POST /v3/bookings/{business_id}/holds' : ''}
                value={chosen[name] ?? ''}
                onChange={(e) => set(name, (e.target as HTMLInputElement).value.trim())}
              />
            </label>
          ))}
        </form>
        <Problem error={entries.error} />
        <RequestTable
          rows={entries.data?.entries}
          open={entry ? Number(entry) : undefined}
          onOpen={(id) => go('requests', { ...chosen, entry: id === undefined ? undefined : String(id) })}
          empty="No request of yours matches. Call the API (with your API key, Basic or OAuth credentials) and it shows here."
        />
      </Card>
      <Problem error={whole.error} />
      {whole.data && (
        <RequestDetail
          entry={whole.data}
          leadLink={(id) => `#/leads?lead=${encodeURIComponent(id)}`}
          deliveryLink={(messageId) => `#/webhooks?message_id=${messageId}`}
        />
      )}
    </Page>
  );
}
