import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, Page, Problem, StatusBadge, Table, when } from '../ui';
import type { Params } from '../pages/shared';

interface Endpoint {
  url: string;
  event_types: string[];
  status: string;
  status_reason: string | null;
  verified_at: string | null;
  secret: string;
  previous_secret_valid_until: string | null;
  duplicate_and_reorder: boolean;
}

interface Delivery {
  id: string;
  message_id: string;
  event_type: string;
  business_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
  attempts_log: Array<{
    at: string;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    response_excerpt: string | null;
  }>;
}

const STATUSES = ['', 'pending', 'delivered', 'failed'];

/** Your endpoint and its signing secret; verification on demand. */
function EndpointCard(props: { endpoint: Endpoint; reload: () => void }) {
  const e = props.endpoint;
  const [shown, setShown] = useState(false);
  return (
    <Card title="Your endpoint" wide>
      <p data-testid="endpoint">
        <code>{e.url}</code> <Badge value={e.status} /> {e.status_reason && <span class="muted">{e.status_reason}</span>}
      </p>
      <p class="muted">
        Verified {when(e.verified_at)} · receives {e.event_types.join(', ')}
      </p>
      <p>
        Signing secret: <code data-testid="secret">{shown ? e.secret : `${e.secret.slice(0, 10)}…`}</code>{' '}
        <button onClick={() => setShown(!shown)}>{shown ? 'Hide' : 'Show'}</button>
        {e.previous_secret_valid_until && (
          <span class="muted"> · the previous one still signs until {when(e.previous_secret_valid_until)}</span>
        )}
      </p>
      <div class="actions">
        <Action label="Verify again" testId="verify" run={() => api('POST', '/portal/v1/webhooks/endpoint/verify')} done={props.reload} />
        <Action
          label="Rotate secret"
          testId="rotate-secret"
          run={() => api('POST', '/portal/v1/webhooks/endpoint/rotate-secret')}
          done={props.reload}
        />
        <label class="inline">
          <input
            type="checkbox"
            data-testid="duplicate-and-reorder"
            checked={e.duplicate_and_reorder}
            onChange={async (event) => {
              await api('PUT', '/portal/v1/webhooks/endpoint/duplicate-and-reorder', { on: (event.target as HTMLInputElement).checked });
              props.reload();
            }}
          />{' '}
          Duplicate and reorder every message (sandbox): prove your receiver de-duplicates by <code>webhook-id</code> and orders by{' '}
          <code>time</code>
        </label>
      </div>
    </Card>
  );
}

/** A test event of a type the endpoint receives: a realistic update marked `"test": true`. */
function TestEventCard(props: { types: string[]; sent: () => void }) {
  const [type, setType] = useState(props.types[0] ?? '');
  const [business, setBusiness] = useState('');
  const [sent, setSent] = useState<string | undefined>(undefined);
  return (
    <Card title="Send a test event">
      <form class="form" onSubmit={(e) => e.preventDefault()}>
        <label>
          event type
          <select name="event_type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            {props.types.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          business id (optional)
          <input name="business_id" value={business} onInput={(e) => setBusiness((e.target as HTMLInputElement).value.trim())} />
        </label>
      </form>
      <Action
        label="Send test event"
        kind="primary"
        testId="send-test-event"
        run={async () => {
          const answer = await api<{ message_id: string }>('POST', '/portal/v1/webhooks/test-events', {
            event_type: type,
            ...(business ? { business_id: business } : {}),
          });
          setSent(answer.message_id);
        }}
        done={props.sent}
      />
      {sent && (
        <p data-testid="test-event-sent">
          Sent as message <code>{sent}</code>.
        </p>
      )}
    </Card>
  );
}

/** Your webhooks, self-served (docs/request-log.md "Webhooks"): endpoint, test events, and every delivery with its attempts and replay. */
export function PortalWebhooks(props: Params) {
  const status = props.params.get('status') ?? '';
  const messageId = props.params.get('message_id') ?? '';
  const endpoint = useGet<Endpoint>('/portal/v1/webhooks/endpoint');
  const query = new URLSearchParams({ limit: '100', ...(status ? { status } : {}), ...(messageId ? { message_id: messageId } : {}) });
  const deliveries = useGet<{ deliveries: Delivery[] }>(`/portal/v1/webhooks/deliveries?${query}`, 3_000);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const noEndpoint = endpoint.error instanceof ApiError && endpoint.error.status === 404;
  return (
    <Page title="Your webhooks">
      {noEndpoint ? (
        <Card title="Your endpoint">
          <p class="muted">No endpoint is registered for you yet: ask your operator to register its URL.</p>
        </Card>
      ) : (
        <Problem error={endpoint.error} />
      )}
      {endpoint.data && (
        <div class="grid">
          <EndpointCard endpoint={endpoint.data} reload={endpoint.reload} />
          <TestEventCard types={endpoint.data.event_types} sent={deliveries.reload} />
        </div>
      )}
      <Card title="Deliveries" wide>
        <form class="form" onSubmit={(e) => e.preventDefault()}>
          <label>
            state
            <select
              name="status"
              value={status}
              onChange={(e) => go('webhooks', { status: (e.target as HTMLSelectElement).value, message_id: messageId })}
            >
              {STATUSES.map((s) => (
                <option value={s}>{s || 'any'}</option>
              ))}
            </select>
          </label>
          {messageId && (
            <label>
              message <code>{messageId}</code> <a href="#/webhooks">show all</a>
            </label>
          )}
          <Action
            label="Redeliver every failed one of the last 24 hours"
            testId="redeliver-failed"
            run={() =>
              api('POST', '/portal/v1/webhooks/deliveries/redeliver-failed', {
                from: new Date(Date.now() - 86_400_000).toISOString(),
                to: new Date(Date.now() + 60_000).toISOString(),
              })
            }
            done={deliveries.reload}
          />
        </form>
        <Problem error={deliveries.error} />
        <Table
          testId="deliveries"
          rows={deliveries.data?.deliveries}
          empty="No delivery to you yet."
          columns={[
            { title: 'Created', cell: (d) => when(d.created_at) },
            {
              title: 'Event',
              cell: (d) => (
                <a
                  href="#"
                  role="button"
                  data-testid={`delivery-${d.id}`}
                  onClick={(e) => (e.preventDefault(), setOpen(open === d.id ? undefined : d.id))}
                >
                  {d.event_type}
                </a>
              ),
            },
            { title: 'Business', cell: (d) => <code>{d.business_id}</code> },
            { title: 'State', cell: (d) => <Badge value={d.status} /> },
            { title: 'Attempts', numeric: true, cell: (d) => d.attempts },
            { title: 'Last answer', cell: (d) => d.last_status_code ?? d.last_error ?? '—' },
            { title: 'Next try', cell: (d) => (d.status === 'pending' ? when(d.next_attempt_at) : '—') },
            {
              title: '',
              cell: (d) => (
                <Action
                  label="Redeliver"
                  testId={`redeliver-${d.id}`}
                  run={() => api('POST', `/portal/v1/webhooks/deliveries/${d.id}/redeliver`)}
                  done={deliveries.reload}
                />
              ),
            },
          ]}
        />
      </Card>
      {open && <Attempts delivery={deliveries.data?.deliveries.find((d) => d.id === open)} />}
    </Page>
  );
}

/** One delivery's attempts: when, the answer's status, how long it took, an excerpt, the error. */
function Attempts(props: { delivery: Delivery | undefined }) {
  const d = props.delivery;
  if (!d) return null;
  return (
    <Card title="Attempts" wide>
      <p>
        {d.event_type} · message <code>{d.message_id}</code>
      </p>
      <Table
        testId="attempts"
        rows={d.attempts_log}
        empty="Not tried yet."
        columns={[
          { title: 'At', cell: (a) => when(a.at) },
          { title: 'Status', cell: (a) => (a.status_code === null ? '—' : <StatusBadge status={a.status_code} />) },
          { title: 'Took', numeric: true, cell: (a) => `${a.latency_ms} ms` },
          { title: 'Answer', cell: (a) => <code>{a.response_excerpt ?? ''}</code> },
          { title: 'Error', cell: (a) => a.error ?? '' },
        ]}
      />
    </Card>
  );
}
