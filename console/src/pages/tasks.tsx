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
            { title: 'Payload', cell: (t) => <Payload payload={t.payload} /> },
            { title: 'Last error', cell: (t) => t.last_error ?? '' },
            {
              title: '',
              cell: (t) =>
                t.state === 'dead' ? (
                  <Action
                    need="support"
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

/** Where the console shows what a payload's id names. */
const LINKS: Record<string, (value: string) => string> = {
  job_id: (id) => `#/advertising?job=${encodeURIComponent(id)}`,
  business_id: (id) => `#/businesses?id=${encodeURIComponent(id)}`,
  partner_id: (id) => `#/partners?id=${encodeURIComponent(id)}`,
  week: () => '#/engagement',
};

/** A task's payload as `field value` lines, the ids it names linked to their pages. */
function Payload(props: { payload: unknown }) {
  const p = props.payload;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return <code>{JSON.stringify(p)}</code>;
  return (
    <dl class="payload">
      {Object.entries(p).map(([key, value]) => (
        <>
          <dt>{key}</dt>
          <dd>
            {typeof value === 'string' && LINKS[key] ? (
              <a href={LINKS[key](value)}>
                <code>{value}</code>
              </a>
            ) : (
              <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
            )}
          </dd>
        </>
      ))}
    </dl>
  );
}
