import { useState } from 'preact/hooks';
import { entriesOf, must, pbs, type Answer } from '../client';
import { Action, Table, IfMay } from '../ui';

type Interfaces = Answer<'/admin/v1/partners/{partner_id}', 'get'>['interfaces'];
type Name = keyof Interfaces;
type Grant = Interfaces[Name];

/**
 * A partner's interfaces: each turned on or off, and its limits per second and per day set or
 * left to the server's defaults (docs/contract/common.md §1.3; PBS_RATE_LIMIT_PER_SECOND and
 * _PER_DAY). A blank limit is the default.
 */
export function PartnerInterfaces(props: { partnerId: string; interfaces: Interfaces; changed: () => void }) {
  const [editing, setEditing] = useState<Name | undefined>(undefined);
  const put = (name: Name, body: { enabled?: boolean; per_second?: number | null; per_day?: number | null }) =>
    must(
      pbs.PUT('/admin/v1/partners/{partner_id}/interfaces/{interface}', {
        params: { path: { partner_id: props.partnerId, interface: name } },
        body,
      }),
    );
  return (
    <Table
      testId="interfaces"
      rows={entriesOf(props.interfaces)}
      columns={[
        { title: 'Interface', cell: ([k]) => k },
        { title: 'Enabled', cell: ([, v]) => (v.enabled ? 'yes' : 'no') },
        { title: 'Per second', numeric: true, cell: ([, v]) => v.per_second ?? 'default' },
        { title: 'Per day', numeric: true, cell: ([, v]) => v.per_day ?? 'default' },
        {
          title: '',
          cell: ([k, v]) =>
            editing === k ? (
              <LimitsForm
                name={k}
                grant={v}
                save={(limits) => put(k, limits)}
                done={() => (setEditing(undefined), props.changed())}
                cancel={() => setEditing(undefined)}
              />
            ) : (
              <span class="actions">
                <Action
                  need="partner_manager"
                  label={v.enabled ? 'Disable' : 'Enable'}
                  testId={`toggle-${k}`}
                  run={() => put(k, { enabled: !v.enabled })}
                  done={props.changed}
                />
                <IfMay need="partner_manager">
                  <button data-testid={`limits-${k}`} onClick={() => setEditing(k)}>
                    Limits
                  </button>
                </IfMay>
              </span>
            ),
        },
      ]}
    />
  );
}

function LimitsForm(props: {
  name: Name;
  grant: Grant;
  save: (limits: { per_second: number | null; per_day: number | null }) => Promise<unknown>;
  done: () => void;
  cancel: () => void;
}) {
  const [perSecond, setPerSecond] = useState(props.grant.per_second?.toString() ?? '');
  const [perDay, setPerDay] = useState(props.grant.per_day?.toString() ?? '');
  const limit = (text: string) => (text.trim() === '' ? null : Number(text));
  return (
    <span class="limits-form" data-testid={`limits-form-${props.name}`}>
      <LimitInput name="per_second" label="per second" value={perSecond} set={setPerSecond} />
      <LimitInput name="per_day" label="per day" value={perDay} set={setPerDay} />
      <Action
        need="partner_manager"
        label="Save"
        kind="primary"
        testId={`save-limits-${props.name}`}
        run={() => props.save({ per_second: limit(perSecond), per_day: limit(perDay) })}
        done={props.done}
      />
      <button onClick={props.cancel}>Cancel</button>
    </span>
  );
}

/** A limit typed as a whole number; blank is the default. */
function LimitInput(props: { name: string; label: string; value: string; set: (value: string) => void }) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type="number"
        min={1}
        placeholder="default"
        value={props.value}
        onInput={(e) => props.set((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}
