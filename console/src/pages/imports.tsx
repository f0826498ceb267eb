import { useState } from 'preact/hooks';
import { api } from '../api';
import { Action, Card, Page, Problem } from '../ui';

const IMPORTS = {
  businesses: { path: '/admin/v1/businesses/import', hint: 'one business per line, as POST /admin/v1/businesses takes it' },
  reviews: { path: '/admin/v1/reviews/import', hint: 'one review per line, each with its business_id' },
  engagement: { path: '/admin/v1/engagement/activity', hint: 'one business-week of activity per line' },
  'reservation settings': { path: '/admin/v1/reservation-settings/import', hint: 'one {"business_id", "settings"} per line' },
} as const;

/** Imports JSON lines in batches, so a large file shows its progress (each batch is all or nothing). */
export function Imports() {
  const [kind, setKind] = useState<keyof typeof IMPORTS>('businesses');
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>(undefined);
  const [result, setResult] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [file, setFile] = useState<File | undefined>(undefined);
  const BATCH = 500;
  const run = async () => {
    if (!file) return;
    setError(undefined);
    setResult(undefined);
    const lines = (await file.text()).split('\n').filter((line) => line.trim() !== '');
    const totals: Record<string, number> = {};
    setProgress({ done: 0, total: lines.length });
    try {
      for (let i = 0; i < lines.length; i += BATCH) {
        const answer = await api<Record<string, unknown>>(
          'POST',
          IMPORTS[kind].path,
          lines.slice(i, i + BATCH).join('\n'),
          'application/x-ndjson',
        );
        for (const [k, v] of Object.entries(answer)) if (typeof v === 'number') totals[k] = (totals[k] ?? 0) + v;
        setProgress({ done: Math.min(lines.length, i + BATCH), total: lines.length });
      }
      setResult(JSON.stringify(totals));
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
            JSON lines file
            <input
              type="file"
              name="file"
              accept=".jsonl,.ndjson,.json,.txt"
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])}
            />
          </label>
          <Action label="Import" kind="primary" testId="import" run={run} />
        </div>
        <p class="muted">
          {IMPORTS[kind].hint}; sent {BATCH} lines at a time (each batch is checked whole before any of it is stored).
        </p>
        {progress && (
          <p>
            <progress value={progress.done} max={progress.total} data-testid="import-progress" /> {progress.done} / {progress.total} lines
          </p>
        )}
        {result && <p data-testid="import-result">Imported: {result}</p>}
        <Problem error={error} />
      </Card>
    </Page>
  );
}
