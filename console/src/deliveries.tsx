import { useState } from 'preact/hooks';
import type { Answer } from './client';
import { Action, Badge, Card, StatusBadge, Table, when, type Column } from './ui';

/** Webhook deliveries as the console and the portal both show them: each expandable to its attempts, each replayable. */

/** A delivery with its attempts, as both the operator's and the portal's listings answer it. */
export type Delivery = Answer<'/admin/v1/webhook-deliveries', 'get'>['deliveries'][number];

/** One delivery's attempts: when, the answer's status, how long it took, an excerpt, the error. */
function Attempts(props: { delivery: Delivery }) {
  const d = props.delivery;
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

/** The deliveries, newest first; the event opens its attempts; `redeliverPath` replays one. */
export function DeliveriesTable(props: {
  rows: Delivery[] | undefined;
  redeliver: (id: string) => Promise<unknown>;
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
                <Action label="Redeliver" testId={`redeliver-${d.id}`} run={() => props.redeliver(d.id)} done={props.reload} />
              ),
          },
        ]}
      />
      {opened && <Attempts delivery={opened} />}
    </>
  );
}
