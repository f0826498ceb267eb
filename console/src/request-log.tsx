import type { Answer } from './client';
import { Badge, Card, StatusBadge, Table, when, type Column } from './ui';

/**
 * The request log as the operator's console and the partner portal both show it
 * (docs/request-log.md): a list of entries, one entry whole with the events it caused, and
 * errors grouped with their hints. Each page passes its own links.
 */

export type RequestEntry = Answer<'/admin/v1/request-log', 'get'>['entries'][number];
export type WholeEntry = Answer<'/admin/v1/request-log/{entry_id}', 'get'>;
export type CausedEvent = WholeEntry['caused'][number];
export type ErrorGroup = Answer<'/admin/v1/request-log/errors', 'get'>['errors'][number];

/** A body as JSON, indented when it is JSON. */
function pretty(text: string | null): string {
  if (text === null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The entries, newest first; the operation opens one whole. `extra` columns go before the request id. */
export function RequestTable(props: {
  rows: RequestEntry[] | undefined;
  open: number | undefined;
  onOpen: (id: number | undefined) => void;
  extra?: Column<RequestEntry>[];
  empty: string;
}) {
  return (
    <Table
      testId="requests"
      rows={props.rows}
      empty={props.empty}
      columns={[
        { title: 'At', cell: (e) => when(e.at) },
        { title: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
        {
          title: 'Operation',
          cell: (e) => (
            <a href="#" role="button" onClick={(event) => (event.preventDefault(), props.onOpen(props.open === e.id ? undefined : e.id))}>
              {e.operation}
            </a>
          ),
        },
        {
          title: 'Error',
          cell: (e) =>
            e.injected ? (
              <span class="badge badge-fault">injected {e.error_code ?? 'drop'}</span>
            ) : e.fault_rule ? (
              <span class="badge badge-fault">delayed</span>
            ) : (
              (e.error_code ?? '')
            ),
        },
        ...(props.extra ?? []),
        { title: 'Duration', numeric: true, cell: (e) => `${e.duration_ms} ms` },
        { title: 'Request id', cell: (e) => <code>{e.request_id}</code> },
      ]}
    />
  );
}

/** One entry whole: what was sent and answered, and the webhook events it caused with their deliveries. */
export function RequestDetail(props: {
  entry: WholeEntry;
  deliveryLink?: (messageId: string) => string;
  /** Where a lead named by the request's path is shown (its conversation). */
  leadLink?: (leadId: string) => string;
}) {
  const e = props.entry;
  const leadId = /^\/v3\/leads\/([^/?]+)/.exec(e.path)?.[1];
  return (
    <Card title="One request, whole" wide>
      <p data-testid="request-summary">
        <strong>{e.operation}</strong> → {e.status} {e.error_code ?? ''}
        <br />
        <code>
          {e.path}
          {e.query ? `?${e.query}` : ''}
        </code>{' '}
        {e.idempotency_key && (
          <>
            Idempotency-Key <code>{e.idempotency_key}</code>
          </>
        )}
        {e.bodies_cut && ' (a body was cut at 16 kB)'}
        {leadId && props.leadLink && (
          <>
            {' '}
            ·{' '}
            <a href={props.leadLink(decodeURIComponent(leadId))} data-testid="request-lead">
              the lead and its conversation
            </a>
          </>
        )}
      </p>
      {e.fault_rule && (
        <p class="notice" data-testid="fault-marked">
          {e.injected ? (
            <>
              Answered by fault rule <code>{e.fault_rule}</code>, not by the API: nothing was changed.
            </>
          ) : (
            <>
              Delayed by fault rule <code>{e.fault_rule}</code>; the API answered.
            </>
          )}
        </p>
      )}
      <p class="muted">
        {when(e.at)} · {e.duration_ms} ms · request id <code>{e.request_id}</code>
        {e.credential && (
          <>
            {' '}
            · {e.credential.kind} <code>{e.credential.id ?? ''}</code>
          </>
        )}
      </p>
      <h3>Sent</h3>
      <pre tabIndex={0} data-testid="request-body">
        {pretty(e.request_body)}
      </pre>
      <h3>Answered</h3>
      <pre tabIndex={0} data-testid="response-body">
        {pretty(e.response_body)}
      </pre>
      <h3>Webhook events it caused</h3>
      <Table
        testId="caused"
        rows={e.caused}
        empty="None."
        columns={[
          { title: 'Event', cell: (c) => c.event_type },
          { title: 'Business', cell: (c) => <code>{c.business_id}</code> },
          {
            title: 'Message id',
            cell: (c) => (props.deliveryLink ? <a href={props.deliveryLink(c.message_id)}>{c.message_id}</a> : <code>{c.message_id}</code>),
          },
          {
            title: 'Deliveries',
            cell: (c) =>
              c.deliveries.length === 0
                ? 'none (no endpoint receives it)'
                : c.deliveries.map((d) => (
                    <span>
                      <Badge value={d.status} /> {d.attempts} attempt{d.attempts === 1 ? '' : 's'}{' '}
                    </span>
                  )),
          },
        ]}
      />
    </Card>
  );
}

/**
 * Errors grouped by code and operation, each with its hint under its code: the first column, so
 * what to do is read at any width (a phone does not scroll sideways to it).
 */
export function ErrorGroups(props: { rows: ErrorGroup[] | undefined; codeLink: (g: ErrorGroup) => string }) {
  return (
    <Table
      testId="error-groups"
      rows={props.rows}
      empty="No error answered."
      columns={[
        {
          title: 'Code, and what to do',
          cell: (g) => (
            <div class="error-group">
              <a href={props.codeLink(g)}>{g.error_code}</a>
              {g.injected && <span class="badge badge-fault">injected</span>}
              {g.hint && <p class="hint">{g.hint}</p>}
            </div>
          ),
        },
        { title: 'Operation', cell: (g) => g.operation },
        { title: 'Count', numeric: true, cell: (g) => g.count },
        { title: 'Last seen', cell: (g) => when(g.last_seen) },
      ]}
    />
  );
}
