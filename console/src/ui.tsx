import { useMayAct, type Need } from './operator';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from './api';

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" data-page={props.title}>
      <header class="page-head">
        <h1>{props.title}</h1>
        <div class="actions">{props.actions}</div>
      </header>
      {props.children}
    </section>
  );
}

export function Card(props: { title?: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <div class={props.wide ? 'card wide' : 'card'}>
      {props.title && <h2>{props.title}</h2>}
      {props.children}
    </div>
  );
}

export function Problem(props: { error: unknown }) {
  if (!props.error) return null;
  const e = props.error as Error;
  return (
    <p class="problem" role="alert">
      {e instanceof ApiError ? <code>{e.code}</code> : null} {e.message}
    </p>
  );
}

export function Loading(props: { when: boolean }) {
  return props.when ? <p class="muted">Loading…</p> : null;
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
  numeric?: boolean;
}

export function Table<T>(props: { rows: T[] | undefined; columns: Column<T>[]; empty?: string; testId?: string }) {
  if (!props.rows) return null;
  if (props.rows.length === 0) return <p class="muted">{props.empty ?? 'Nothing here yet.'}</p>;
  return (
    // Wide tables scroll inside their card (at 390 px), and the card itself clips nothing (a picker's suggestions overlap it);
    // the scrolling region takes the keyboard's focus, so it can be scrolled without a mouse.
    <div class="table-scroll" tabIndex={0}>
      <table data-testid={props.testId}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th class={c.numeric ? 'num' : undefined}>{c.title}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {props.columns.map((c) => (
                <td class={c.numeric ? 'num' : undefined}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What only an operator whose role reaches `need` sees (an editing form's opener, say). */
export function IfMay(props: { need: Need; children: ComponentChildren }) {
  return useMayAct(props.need) ? <>{props.children}</> : null;
}

/**
 * A button running an async action: disabled meanwhile, its error shown beside it. It shows only
 * to an operator whose role reaches `need`, the role the action's operation declares (pbs refuses
 * it below that regardless).
 */
export function Action(props: {
  need: Need;
  label: string;
  run: () => Promise<unknown>;
  done?: () => void;
  kind?: 'danger' | 'primary';
  testId?: string;
  /** Asked first (a change that cannot be taken back); nothing runs unless confirmed. */
  confirm?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  if (!useMayAct(props.need)) return null;
  return (
    <span class="action">
      <button
        class={props.kind}
        data-testid={props.testId}
        disabled={busy}
        onClick={async () => {
          if (props.confirm !== undefined && !window.confirm(props.confirm)) return;
          setBusy(true);
          setError(undefined);
          try {
            await props.run();
            props.done?.();
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? '…' : props.label}
      </button>
      {error ? <Problem error={error} /> : null}
    </span>
  );
}

export function Badge(props: { value: string | null | undefined }) {
  const value = props.value ?? '—';
  return <span class={`badge badge-${value.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{value}</span>;
}

/** An HTTP status, coloured by its class (2xx green, 4xx amber, 5xx red). */
export function StatusBadge(props: { status: number }) {
  const kind = props.status < 300 ? 'ok' : props.status < 500 ? 'client' : 'server';
  return (
    <span class={`badge badge-status-${kind}`} data-status={props.status}>
      {props.status}
    </span>
  );
}

/** An id exactly as it is (never re-cased), with a button that copies it. */
export function Id(props: { value: string }) {
  return (
    <span class="id">
      <code data-testid="id">{props.value}</code> <CopyButton value={props.value} label={`Copy ${props.value}`} />
    </span>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export interface BarSeries {
  name: string;
  color: string;
  values: number[];
}

/** Stacked bars over labels (days, minutes): SVG, no library. */
export function BarChart(props: { labels: string[]; series: BarSeries[]; height?: number; testId?: string; labelEvery?: number }) {
  const height = props.height ?? 160;
  const width = 640;
  const pad = { left: 36, bottom: 22, top: 8 };
  const totals = props.labels.map((_, i) => props.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const step = (width - pad.left) / Math.max(1, props.labels.length);
  const scale = (v: number) => (v / max) * (height - pad.bottom - pad.top);
  const every = props.labelEvery ?? Math.ceil(props.labels.length / 8);
  return (
    <figure class="chart" data-testid={props.testId}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.series.map((s) => s.name).join(', ')}>
        <line x1={pad.left} x2={width} y1={height - pad.bottom} y2={height - pad.bottom} class="axis" />
        <text x={pad.left - 6} y={pad.top + 8} class="tick" text-anchor="end">
          {max}
        </text>
        <text x={pad.left - 6} y={height - pad.bottom} class="tick" text-anchor="end">
          0
        </text>
        {props.labels.map((label, i) => {
          let y = height - pad.bottom;
          return (
            <g>
              {props.series.map((s) => {
                const h = scale(s.values[i] ?? 0);
                y -= h;
                return h > 0 ? (
                  <rect x={pad.left + i * step + 1} y={y} width={Math.max(1, step - 2)} height={h} fill={s.color}>
                    <title>{`${label}: ${s.name} ${s.values[i]}`}</title>
                  </rect>
                ) : null;
              })}
              {i % every === 0 ? (
                <text x={pad.left + i * step + step / 2} y={height - 6} class="tick" text-anchor="middle">
                  {label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {props.series.map((s) => (
          <span class="legend">
            <i style={{ background: s.color }} /> {s.name} ({s.values.reduce((a, b) => a + b, 0)})
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/**
 * One measure over labels (weeks) on its own fixed range: a line with each value written above
 * its point, and a y axis labelled with the measure's name and its range. SVG, no library.
 */
export function LineChart(props: { labels: string[]; name: string; color: string; max: number; values: number[]; testId?: string }) {
  const width = 640;
  const height = 170;
  const pad = { left: 44, right: 16, top: 18, bottom: 22 };
  const x = (i: number) => pad.left + (props.labels.length <= 1 ? 0 : (i / (props.labels.length - 1)) * (width - pad.left - pad.right));
  const y = (v: number) => height - pad.bottom - (v / props.max) * (height - pad.top - pad.bottom);
  const ticks = [0, Math.round(props.max / 2), props.max];
  return (
    <figure class="chart" data-testid={props.testId}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${props.name}, 0 to ${props.max}, by week`}>
        <line x1={pad.left} x2={pad.left} y1={pad.top} y2={height - pad.bottom} class="axis" />
        <line x1={pad.left} x2={width - pad.right} y1={height - pad.bottom} y2={height - pad.bottom} class="axis" />
        {ticks.map((t) => (
          <text x={pad.left - 6} y={y(t) + 3} class="tick" text-anchor="end">
            {t}
          </text>
        ))}
        <text
          x={12}
          y={(pad.top + height - pad.bottom) / 2}
          class="tick"
          text-anchor="middle"
          transform={`rotate(-90 12 ${(pad.top + height - pad.bottom) / 2})`}
        >
          {props.name}
        </text>
        <polyline points={props.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} fill="none" stroke={props.color} stroke-width="2" />
        {props.values.map((v, i) => (
          <g>
            <circle cx={x(i)} cy={y(v)} r="3" fill={props.color}>
              <title>{`${props.labels[i]}: ${props.name} ${v} of ${props.max}`}</title>
            </circle>
            <text x={x(i)} y={y(v) - 7} class="value" text-anchor="middle">
              {v}
            </text>
          </g>
        ))}
        {props.labels.map((label, i) => (
          <text x={x(i)} y={height - 6} class="tick" text-anchor="middle">
            {label}
          </text>
        ))}
      </svg>
      <figcaption>
        {props.name}: 1–{props.max}, by week
      </figcaption>
    </figure>
  );
}

export function Pager(props: { offset: number; limit: number; total: number | undefined; onChange: (offset: number) => void }) {
  if (props.total === undefined) return null;
  return (
    <div class="pager">
      <button disabled={props.offset === 0} onClick={() => props.onChange(Math.max(0, props.offset - props.limit))}>
        ← Previous
      </button>
      <span class="muted">
        {props.total === 0 ? 0 : props.offset + 1}–{Math.min(props.total, props.offset + props.limit)} of {props.total}
      </span>
      <button disabled={props.offset + props.limit >= props.total} onClick={() => props.onChange(props.offset + props.limit)}>
        Next →
      </button>
    </div>
  );
}

/** A copy button for `value`, saying "Copied" for a moment. */
export function CopyButton(props: { value: string; label: string }) {
  const [said, setSaid] = useState<string | undefined>(undefined);
  return (
    <button
      class="copy"
      aria-label={props.label}
      onClick={async () => {
        // The clipboard may be refused (a page not served over HTTPS or localhost, a denied permission).
        const copied = await navigator.clipboard.writeText(props.value).then(
          () => true,
          () => false,
        );
        setSaid(copied ? 'Copied' : 'Copy refused: select it instead');
        setTimeout(() => setSaid(undefined), 1500);
      }}
    >
      {said ?? 'Copy'}
    </button>
  );
}

/** A secret, masked until revealed, with a copy button that copies it either way. */
export function Secret(props: { name: string; value: string; testId?: string }) {
  const [shown, setShown] = useState(false);
  return (
    <span class="secret-value">
      <code data-testid={props.testId}>{shown ? props.value : '•'.repeat(Math.min(24, props.value.length))}</code>{' '}
      <button aria-label={`${shown ? 'Hide' : 'Reveal'} ${props.name}`} aria-pressed={shown} onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Reveal'}
      </button>{' '}
      <CopyButton value={props.value} label={`Copy ${props.name}`} />
    </span>
  );
}

/** What of an issued or rolled credential is said once: its identifiers and its secrets. */
export interface IssuedSecrets {
  kind: string;
  api_key?: string;
  username?: string;
  password?: string;
  client_id?: string;
  client_secret?: string;
  previous_secret_valid_until?: string | null;
}

/**
 * A credential's new secret, shown once: masked, with reveal and copy, until dismissed. It lives
 * only in the component's state: nothing keeps it after the page moves on.
 */
export function NewSecret(props: { issued: IssuedSecrets; onDismiss: () => void }) {
  const i = props.issued;
  const rows: Array<[string, string, boolean]> = [];
  if (i.api_key) rows.push(['API key', i.api_key, true]);
  if (i.username) rows.push(['Username', i.username, false]);
  if (i.password) rows.push(['Password', i.password, true]);
  if (i.client_id) rows.push(['Client id', i.client_id, false]);
  if (i.client_secret) rows.push(['Client secret', i.client_secret, true]);
  return (
    <div class="new-secret" role="status" data-testid="new-secret">
      <p>
        <strong>Shown once.</strong> Copy it now: pbs keeps only its hash.
        {i.previous_secret_valid_until && <> The previous secret keeps working until {when(i.previous_secret_valid_until)}.</>}
      </p>
      <dl>
        {rows.map(([name, value, secret]) => (
          <>
            <dt>{name}</dt>
            <dd>
              {secret ? (
                <Secret name={name} value={value} testId={`secret-${name.toLowerCase().replace(/ /g, '-')}`} />
              ) : (
                <Id value={value} />
              )}
            </dd>
          </>
        ))}
      </dl>
      <button onClick={props.onDismiss} data-testid="dismiss-secret">
        I have copied it
      </button>
    </div>
  );
}
