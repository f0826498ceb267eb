import { useState } from 'preact/hooks';
import { importText } from '../client';
import { Action, Card, Page, Problem } from '../ui';

const IMPORTS = {
  businesses: {
    path: '/admin/v1/businesses/import',
    hint: 'one business per line, as POST /admin/v1/businesses takes it, or a .csv file with a header row naming the columns',
  },
  reviews: { path: '/admin/v1/reviews/import', hint: 'one review per line, each with its business_id' },
  engagement: { path: '/admin/v1/engagement/activity', hint: 'one business-week of activity per line' },
  'reservation settings': { path: '/admin/v1/reservation-settings/import', hint: 'one {"business_id", "settings"} per line' },
} as const;

type NotSearchable = { count: number; no_reviews: number; closed: number; no_coordinates: number };

/** A business import's `not_searchable` counts (the other imports answer none). */
function isNotSearchable(value: unknown): value is NotSearchable {
  return (
    typeof value === 'object' &&
    value !== null &&
    'count' in value &&
    'no_reviews' in value &&
    'closed' in value &&
    'no_coordinates' in value &&
    [value.count, value.no_reviews, value.closed, value.no_coordinates].every((n) => typeof n === 'number')
  );
}

/** Says how many imported businesses search will not list, and why (docs/catalogue.md "Imports"); nothing when all are listed. */
function notSearchableNotice(imported: number, n: NotSearchable | undefined): string | undefined {
  if (!n || n.count === 0) return undefined;
  const why = [
    n.no_reviews > 0 && `${n.no_reviews} without reviews (search lists only reviewed businesses, as the original does)`,
    n.closed > 0 && `${n.closed} closed for good`,
    n.no_coordinates > 0 && `${n.no_coordinates} without coordinates`,
  ].filter(Boolean);
  return `${n.count} of the ${imported} imported businesses will not appear in search: ${why.join('; ')}. Calls by id still find them.`;
}

/**
 * Imports JSON lines in batches, so a large file shows its progress (each batch is all or
 * nothing). A business CSV goes whole, in one request: its rows may span lines, and the server
 * streams it.
 */
export function Imports() {
  const [kind, setKind] = useState<keyof typeof IMPORTS>('businesses');
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>(undefined);
  const [result, setResult] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [file, setFile] = useState<File | undefined>(undefined);
  const BATCH = 500;
  const run = async () => {
    if (!file) return;
    setError(undefined);
    setResult(undefined);
    setNotice(undefined);
    const text = await file.text();
    const csv = kind === 'businesses' && /\.csv$/i.test(file.name);
    const batches = csv ? [text] : [];
    if (!csv) {
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      for (let i = 0; i < lines.length; i += BATCH) batches.push(lines.slice(i, i + BATCH).join('\n'));
    }
    const totals: Record<string, number> = {};
    const unlisted: NotSearchable = { count: 0, no_reviews: 0, closed: 0, no_coordinates: 0 };
    let sawUnlisted = false;
    setProgress({ done: 0, total: batches.length });
    try {
      for (const [i, batch] of batches.entries()) {
        const answer = await importText(IMPORTS[kind].path, batch, csv ? 'text/csv' : 'application/x-ndjson');
        for (const [k, v] of Object.entries(answer)) if (typeof v === 'number') totals[k] = (totals[k] ?? 0) + v;
        const n: unknown = 'not_searchable' in answer ? answer.not_searchable : undefined;
        if (isNotSearchable(n)) {
          sawUnlisted = true;
          unlisted.count += n.count;
          unlisted.no_reviews += n.no_reviews;
          unlisted.closed += n.closed;
          unlisted.no_coordinates += n.no_coordinates;
        }
        setProgress({ done: i + 1, total: batches.length });
      }
      setResult(JSON.stringify(totals));
      setNotice(notSearchableNotice(totals.imported ?? 0, sawUnlisted ? unlisted : undefined));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page title="Imports">
      <Card>
        <div class="form">
          <label>
            What
            <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as keyof typeof IMPORTS)}>
              {Object.keys(IMPORTS).map((k) => (
                <option value={k}>{k}</option>
              ))}
            </select>
          </label>
          <label>
            JSON lines (or business CSV) file
            <input
              type="file"
              name="file"
              accept=".jsonl,.ndjson,.json,.txt,.csv"
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])}
            />
          </label>
          <Action need="admin" label="Import" kind="primary" testId="import" run={run} />
        </div>
        <p class="muted">
          {IMPORTS[kind].hint}; JSON lines are sent {BATCH} at a time (each batch is checked whole before any of it is stored).
        </p>
        {progress && (
          <p>
            <progress value={progress.done} max={progress.total} data-testid="import-progress" /> {progress.done} / {progress.total}{' '}
            requests
          </p>
        )}
        {result && <p data-testid="import-result">Imported: {result}</p>}
        {notice && (
          <p class="notice" role="status" data-testid="import-notice">
            {notice}
          </p>
        )}
        <Problem error={error} />
      </Card>
    </Page>
  );
}
