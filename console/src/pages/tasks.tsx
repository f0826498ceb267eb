import { api } from '../api';
import { go, useGet } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import { type Params } from './shared';

export function Tasks(props: Params) {
  const state = props.params.get('state') ?? '';
  const tasks = useGet<{
    tasks: Array<{
      id: string;
      type: string;
      state: string;
      attempts: number;
      max_attempts: number;
      run_at: string;
      last_error: string | null;
      payload: unknown;
    }>;
  }>(`/admin/v1/tasks?limit=100${state ? `&state=${state}` : ''}`, 5_000);
  return (
    <Page title="Background tasks">
      <Card>
        <div class="form">
          <label>
            State
            <select name="state" value={state} onChange={(e) => go('tasks', { state: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {['pending', 'running', 'succeeded', 'dead'].map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </label>
        </div>
        <Problem error={tasks.error} />
        <Table
          testId="tasks"
          rows={tasks.data?.tasks}
          empty="No task."
          columns={[
            { title: 'Type', cell: (t) => t.type },
            { title: 'State', cell: (t) => <Badge value={t.state} /> },
            { title: 'Attempts', numeric: true, cell: (t) => `${t.attempts}/${t.max_attempts}` },
            { title: 'Run at', cell: (t) => when(t.run_at) },
            { title: 'Payload', cell: (t) => <code>{JSON.stringify(t.payload)}</code> },
            { title: 'Last error', cell: (t) => t.last_error ?? '' },
            {
              title: '',
              cell: (t) =>
                t.state === 'dead' ? (
                  <Action label="Retry" run={() => api('POST', `/admin/v1/tasks/${t.id}/retry`)} done={tasks.reload} />
                ) : null,
            },
          ]}
        />
      </Card>
    </Page>
  );
}
