import type { Need } from './operator';
import { useState } from 'preact/hooks';
import type { Answer } from './client';
import { Action, Badge, Card, Problem, StatusBadge, Table, when, type Column } from './ui';
import { useQuery } from './hooks';

/** Webhook deliveries as the console and the portal both show them: each expandable to its attempts, each replayable. */

/** A delivery with its attempts, as both the operator's and the portal's listings answer it. */
export type Delivery = Answer<'/admin/v1/webhook-deliveries', 'get'>['deliveries'][number];
/** One delivery whole: also the message as it is sent and the URL it goes to. */
export type DeliveryDetail = Answer<'/admin/v1/webhook-deliveries/{delivery_id}', 'get'>;

/** One delivery's attempts: when, the answer's status, how long it took, an excerpt, the error. */
function Attempts(props: { delivery: Delivery; detail: (id: string) => Promise<DeliveryDetail> }) {
  const d = props.delivery;
  const whole = useQuery(`delivery:${d.id}`, () => props.detail(d.id));
  return (
    <Card title="Attempts" wide>
      <p>
        {d.event_type} · message <code>{d.message_id}</code>
        {whole.data && (
          <>
            {' '}
            · to <code data-testid="delivery-url">{whole.data.endpoint_url ?? 'no endpoint now'}</code>
          </>
        )}
      </p>
      <Problem error={whole.error} />
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
      {whole.data && (
        <details open>
          <summary>The message as it is sent</summary>
          {/* Focusable: a long payload scrolls, and a keyboard must reach it. */}
          <pre class="payload" tabIndex={0} data-testid="delivery-payload">
            {JSON.stringify(whole.data.payload, null, 2)}
          </pre>
        </details>
      )}
    </Card>
  );
}

/** The deliveries, newest first; the event opens its attempts; `redeliverPath` replays one. */
export function DeliveriesTable(props: {
  /** Who may use its button (the console's role, or the portal's partner). */
  need: Need;
  rows: Delivery[] | undefined;
  redeliver: (id: string) => Promise<unknown>;
  /** One delivery whole (its payload and URL), read when it is opened. */
  detail: (id: string) => Promise<DeliveryDetail>;
  reload: () => void;
  extra?: Column<Delivery>[];
  empty: string;
}) {
  const [open, setOpen] = useState<string | undefined>(undefined);
  const opened = props.rows?.find((d) => d.id === open);
  return (
    <>
      <Table
        testId="deliveries"
        rows={props.rows}
        empty={props.empty}
        columns={[
          { title: 'Created', cell: (d) => when(d.created_at) },
          {
            title: 'Event',
            cell: (d) => (
              <a
                href="#"
                role="button"
                aria-expanded={open === d.id}
                data-testid={`delivery-${d.id}`}
                onClick={(e) => (e.preventDefault(), setOpen(open === d.id ? undefined : d.id))}
              >
                {d.event_type}
              </a>
            ),
          },
          ...(props.extra ?? []),
          {
            title: 'Business',
            cell: (d) => d.business_name ?? <code>{d.business_id}</code>,
          },
          { title: 'State', cell: (d) => <Badge value={d.status} /> },
          { title: 'Attempts', numeric: true, cell: (d) => d.attempts },
          { title: 'Last answer', cell: (d) => d.last_status_code ?? d.last_error ?? '—' },
          { title: 'Next try', cell: (d) => (d.status === 'pending' ? when(d.next_attempt_at) : '—') },
          {
            title: '',
            // A pending message is sent anyway at its next try.
            cell: (d) =>
              d.status === 'pending' ? null : (
                <Action
                  need={props.need}
                  label="Redeliver"
                  testId={`redeliver-${d.id}`}
                  run={() => props.redeliver(d.id)}
                  done={props.reload}
                />
              ),
          },
        ]}
      />
      {opened && <Attempts delivery={opened} detail={props.detail} />}
    </>
  );
}
