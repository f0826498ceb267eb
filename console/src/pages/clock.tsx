import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { Action, Card, Page, Problem, when } from '../ui';

export function Clock() {
  const clock = useQuery('clock', () => must(pbs.GET('/admin/v1/clock')), 1_000);
  const [minutes, setMinutes] = useState('60');
  const [time, setTime] = useState('');
  const c = clock.data;
  return (
    <Page title="Sandbox clock">
      <Card>
        <Problem error={clock.error} />
        {c && (
          <>
            <p class="stat" data-testid="clock-now">
              {c.now}
            </p>
            <p class="muted">
              {when(c.now)} · {c.frozen ? 'frozen' : 'running'} ·{' '}
              {c.sandbox ? 'sandbox: the clock can be moved' : 'production: the clock follows real time'}
            </p>
            {c.sandbox && (
              <>
                <div class="form">
                  <label>
                    Minutes
                    <input
                      name="minutes"
                      type="number"
                      min="1"
                      value={minutes}
                      onInput={(e) => setMinutes((e.target as HTMLInputElement).value)}
                    />
                  </label>
                  <Action
                    need="admin"
                    label="Advance"
                    kind="primary"
                    testId="advance"
                    run={() => must(pbs.POST('/admin/v1/clock/advance', { body: { minutes: Number(minutes) } }))}
                    done={clock.reload}
                  />
                  <Action
                    need="admin"
                    label={c.frozen ? 'Unfreeze' : 'Freeze'}
                    run={() => must(pbs.PUT('/admin/v1/clock', { body: { frozen: !c.frozen } }))}
                    done={clock.reload}
                  />
                  <Action
                    need="admin"
                    label="Back to real time"
                    run={() => must(pbs.PUT('/admin/v1/clock', { body: { reset: true } }))}
                    done={clock.reload}
                  />
                </div>
                <div class="form">
                  <label>
                    Set to (ISO 8601)
                    <input
                      name="time"
                      placeholder="2031-05-05T16:00:00Z"
                      value={time}
                      onInput={(e) => setTime((e.target as HTMLInputElement).value)}
                    />
                  </label>
                  <Action need="admin" label="Set" run={() => must(pbs.PUT('/admin/v1/clock', { body: { time } }))} done={clock.reload} />
                </div>
              </>
            )}
          </>
        )}
      </Card>
    </Page>
  );
}
