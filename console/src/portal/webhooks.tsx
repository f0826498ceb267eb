import { useState } from 'preact/hooks';
import type { paths } from '../../../packages/sdk/src/schema';
import { ApiError } from '../api';
import { must, pbs, type Answer } from '../client';
import { DeliveriesTable } from '../deliveries';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Page, Problem, Secret, when } from '../ui';
import type { Params } from '../pages/shared';
import { YourBusiness } from './business-choice';
import { EndpointForm, type EndpointBody } from '../endpoint-form';

type Endpoint = Answer<'/portal/v1/webhooks/endpoint', 'get'>;
type TestEventBody = NonNullable<paths['/portal/v1/webhooks/test-events']['post']['requestBody']>['content']['application/json'];
const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
const isDeliveryState = (s: string): s is (typeof DELIVERY_STATES)[number] => (DELIVERY_STATES as readonly string[]).includes(s);

const STATUSES = ['', 'pending', 'delivered', 'failed'];

const saveEndpoint = (body: EndpointBody) => must(pbs.PUT('/portal/v1/webhooks/endpoint', { body }));

/** Your endpoint and its signing secret; verification on demand. */
function EndpointCard(props: { endpoint: Endpoint; reload: () => void }) {
  const e = props.endpoint;
  const [editing, setEditing] = useState(false);
  if (editing)
    return (
      <Card title="Change your endpoint" wide>
        <EndpointForm
          need="partner"
          endpoint={e}
          save={saveEndpoint}
          saved={() => (setEditing(false), props.reload())}
          cancel={() => setEditing(false)}
        />
      </Card>
    );
  return (
    <Card title="Your endpoint" wide>
      <p data-testid="endpoint">
        <code>{e.url}</code> <Badge value={e.status} /> {e.status_reason && <span class="muted">{e.status_reason}</span>}
      </p>
      <p class="muted">
        Verified {when(e.verified_at)} · receives {e.event_types.join(', ')}
      </p>
      <p>
        Signing secret: <Secret name="signing secret" value={e.secret} testId="secret" />
        {e.previous_secret_valid_until && (
          <span class="muted"> · the previous one still signs until {when(e.previous_secret_valid_until)}</span>
        )}
      </p>
      <div class="actions">
        <button data-testid="change-endpoint" onClick={() => setEditing(true)}>
          Change
        </button>
        <Action
          need="partner"
          label="Remove"
          kind="danger"
          testId="remove-endpoint"
          confirm="Remove your endpoint? Nothing more is delivered to you until you register one again."
          run={() => must(pbs.DELETE('/portal/v1/webhooks/endpoint'))}
          done={props.reload}
        />
        <Action
          need="partner"
          label="Verify again"
          testId="verify"
          run={() => must(pbs.POST('/portal/v1/webhooks/endpoint/verify'))}
          done={props.reload}
        />
        <Action
          need="partner"
          label="Rotate secret"
          testId="rotate-secret"
          run={() => must(pbs.POST('/portal/v1/webhooks/endpoint/rotate-secret'))}
          done={props.reload}
        />
        <label class="inline">
          <input
            type="checkbox"
            data-testid="duplicate-and-reorder"
            checked={e.duplicate_and_reorder}
            onChange={async (event) => {
              await must(
                pbs.PUT('/portal/v1/webhooks/endpoint/duplicate-and-reorder', { body: { on: (event.target as HTMLInputElement).checked } }),
              );
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
        <YourBusiness value={business} onPick={setBusiness} />
      </form>
      <Action
        need="partner"
        label="Send test event"
        kind="primary"
        testId="send-test-event"
        run={async () => {
          // Cast: the select offers only the types the endpoint receives (pbs checks it again).
          const body = { event_type: type, ...(business ? { business_id: business } : {}) } as TestEventBody;
          const answer = await must(pbs.POST('/portal/v1/webhooks/test-events', { body }));
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
  const endpoint = useQuery('endpoint', () => must(pbs.GET('/portal/v1/webhooks/endpoint')));
  const deliveries = useQuery(
    `deliveries:${status}:${messageId}`,
    () =>
      must(
        pbs.GET('/portal/v1/webhooks/deliveries', {
          params: { query: { limit: 100, status: isDeliveryState(status) ? status : undefined, message_id: messageId || undefined } },
        }),
      ),
    3_000,
  );
  const noEndpoint = endpoint.error instanceof ApiError && endpoint.error.status === 404;
  return (
    <Page title="Your webhooks">
      {noEndpoint ? (
        <Card title="Register your endpoint" wide>
          <p class="muted">
            No endpoint is registered for you yet. pbs verifies it first (a GET with a <code>verification</code> parameter it must echo) and
            then signs every delivery (Standard Webhooks).
          </p>
          <EndpointForm need="partner" save={saveEndpoint} saved={endpoint.reload} />
        </Card>
      ) : (
        <Problem error={endpoint.error} />
      )}
      {/* After a removal the last answer stays in the query until the next one: the 404 decides. */}
      {endpoint.data && !noEndpoint && (
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
            need="partner"
            label="Redeliver every failed one"
            testId="redeliver-failed"
            // Every one, whatever the sandbox clock says: messages are dated on pbs's clock, not this browser's.
            run={() =>
              must(
                pbs.POST('/portal/v1/webhooks/deliveries/redeliver-failed', {
                  body: { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' },
                }),
              )
            }
            done={deliveries.reload}
          />
        </form>
        <Problem error={deliveries.error} />
        <DeliveriesTable
          need="partner"
          rows={deliveries.data?.deliveries}
          empty="No delivery to you yet."
          reload={deliveries.reload}
          redeliver={(id) =>
            must(pbs.POST('/portal/v1/webhooks/deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: id } } }))
          }
          detail={(id) => must(pbs.GET('/portal/v1/webhooks/deliveries/{delivery_id}', { params: { path: { delivery_id: id } } }))}
        />
      </Card>
    </Page>
  );
}
