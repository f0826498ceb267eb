import { useState } from 'preact/hooks';
import { must, pbs, type Answer } from '../client';
import { useQuery } from '../hooks';
import { Card, Page, Problem, Table, when } from '../ui';
import { useMayAct } from '../operator';

type AuditRecord = Answer<'/admin/v1/audit', 'get'>['records'][number];

/** The search's fields, as the API's query names them. */
interface Filters {
  actor: string;
  partner_id: string;
  business_id: string;
  action: string;
  since: string;
  until: string;
}
const NONE: Filters = { actor: '', partner_id: '', business_id: '', action: '', since: '', until: '' };

const LABELS: Array<[keyof Filters, string, string]> = [
  ['actor', 'Person', 'e-mail or account id'],
  ['partner_id', 'Partner', 'partner id'],
  ['business_id', 'Business', 'business id'],
  ['action', 'Action', 'disable, credentials, SIGN-IN…'],
  ['since', 'Since', ''],
  ['until', 'Until', ''],
];

/** A local date-time field as the API's ISO time (empty stays empty). */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : '');

/**
 * The audit trail (docs/security.md "Audit trail"): who changed what, when and from where,
 * searched by person, partner, business, action and time, newest first; an admin exports it as
 * JSON lines.
 */
export function Audit() {
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const query = Object.fromEntries(
    Object.entries({ ...filters, since: isoOf(filters.since), until: isoOf(filters.until) }).filter(([, value]) => value !== ''),
  );
  const page = useQuery(`audit:${JSON.stringify(query)}:${cursor ?? ''}`, () =>
    must(pbs.GET('/admin/v1/audit', { params: { query: { ...query, limit: 50, ...(cursor ? { cursor } : {}) } } })),
  );
  const mayExport = useMayAct('admin');
  return (
    <Page title="Audit trail">
      <Card wide>
        <form
          class="form"
          onSubmit={(e) => {
            e.preventDefault();
            setCursor(undefined);
            setFilters(draft);
          }}
        >
          {LABELS.map(([key, label, hint]) => {
            const onInput = (e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value });
            return (
              <label>
                {label}
                {key === 'since' || key === 'until' ? (
                  <input name={key} type="datetime-local" value={draft[key]} onInput={onInput} />
                ) : (
                  <input name={key} type="text" placeholder={hint} value={draft[key]} onInput={onInput} />
                )}
              </label>
            );
          })}
          <button class="primary" type="submit" data-testid="audit-search">
            Search
          </button>
          {mayExport && (
            <a class="button" href={`/admin/v1/audit/export?${new URLSearchParams(query).toString()}`} download="pbs-audit.jsonl">
              Export JSON lines
            </a>
          )}
        </form>
        <Problem error={page.error} />
        <Table
          testId="audit"
          rows={page.data?.records}
          empty="Nothing recorded that matches."
          columns={[
            { title: 'When', cell: (r) => when(r.at) },
            { title: 'Who', cell: (r) => `${r.actor.name}${r.actor.via === 'token' ? ' (token)' : ''}` },
            { title: 'Action', cell: (r) => <code>{r.action}</code> },
            { title: 'Target', cell: (r) => (r.target ? `${r.target.kind} ${r.target.id}` : '—') },
            { title: 'From', cell: (r) => r.address },
            { title: 'What changed', cell: (r) => <Details record={r} /> },
          ]}
        />
        {page.data?.next_cursor && (
          <button onClick={() => setCursor(page.data?.next_cursor ?? undefined)} data-testid="audit-older">
            Older →
          </button>
        )}
      </Card>
    </Page>
  );
}

/** A record's details, shortened: before → after when the service said them, else the fields sent. */
function Details(props: { record: AuditRecord }) {
  const { recorded: _recorded, ...rest } = props.record.details;
  const text = JSON.stringify(rest);
  return text === '{}' ? <span class="muted">—</span> : <code class="details">{text.length > 200 ? `${text.slice(0, 200)}…` : text}</code>;
}
