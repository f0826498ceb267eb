import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import type { Params } from './shared';

const TASK_STATES = ['pending', 'running', 'succeeded', 'dead'] as const;
const isTaskState = (s: string): s is (typeof TASK_STATES)[number] => (TASK_STATES as readonly string[]).includes(s);

export function Tasks(props: Params) {
  const state = props.params.get('state') ?? '';
  const tasks = useQuery(
    `tasks:${state}`,
    () => must(pbs.GET('/admin/v1/tasks', { params: { query: { limit: 100, ...(isTaskState(state) ? { state } : {}) } } })),
    5_000,
  );
  return (
    <Page title="Background tasks">
      <Card>
        <div class="form">
          <label>
            State
            <select name="state" value={state} onChange={(e) => go('tasks', { state: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {TASK_STATES.map((s) => (
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
                  <Action
                    label="Retry"
                    run={() => must(pbs.POST('/admin/v1/tasks/{task_id}/retry', { params: { path: { task_id: t.id } } }))}
                    done={tasks.reload}
                  />
                ) : null,
            },
          ]}
        />
      </Card>
    </Page>
  );
}
