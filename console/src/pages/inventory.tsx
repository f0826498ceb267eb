import './inventory.css';
import { useState } from 'preact/hooks';
import { must, pbs, type Answer } from '../client';
import { Action, Card } from '../ui';

/** A restaurant's reservation inventory, as `PUT /admin/v1/businesses/{id}/reservation-settings` takes it (docs/reservations.md). */
export interface Settings {
  accepts_reservations: boolean;
  party_size: { min: number; max: number };
  max_future_days: number;
  min_notice_minutes: number;
  service_hours: Array<{ day: number; start: string; last_seating: string }>;
  closed_dates: string[];
  tables: Array<{ name: string; min_party: number; max_party: number }>;
  turn_times: Array<{ max_party: number | null; minutes: number }>;
  credit_card: { min_party: number | null; dates: string[] };
  cancellation: { policy: string; cutoff_minutes: number };
  notes: string;
  is_editable: boolean;
}

/** 0 = Monday … 6 = Sunday, as pbs counts days. */
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const YMD = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** A restaurant that takes no reservations yet starts from these. */
export const STARTING_INVENTORY: Settings = {
  accepts_reservations: true,
  party_size: { min: 1, max: 8 },
  max_future_days: 60,
  min_notice_minutes: 60,
  service_hours: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '17:00', last_seating: '21:30' })),
  closed_dates: [],
  tables: [
    { name: 'T1', min_party: 1, max_party: 2 },
    { name: 'T2', min_party: 2, max_party: 4 },
  ],
  turn_times: [
    { max_party: 2, minutes: 90 },
    { max_party: null, minutes: 120 },
  ],
  credit_card: { min_party: null, dates: [] },
  cancellation: { policy: '', cutoff_minutes: 0 },
  notes: '',
  is_editable: true,
};

/** The inventory pbs answered, every field the form edits filled (a field it leaves out takes the starting value). */
export function completeInventory(answer: Answer<'/admin/v1/businesses/{business_id}/reservation-settings', 'get'>): Settings {
  const start = STARTING_INVENTORY;
  return {
    ...start,
    ...answer,
    credit_card: { min_party: answer.credit_card?.min_party ?? null, dates: answer.credit_card?.dates ?? [] },
    cancellation: { policy: answer.cancellation?.policy ?? '', cutoff_minutes: answer.cancellation?.cutoff_minutes ?? 0 },
  };
}

/** What is wrong with the form, field by field (pbs checks again and answers 400 with the field). */
export function problemsOf(s: Settings): string[] {
  const problems: string[] = [];
  if (s.party_size.min < 1 || s.party_size.max > 10 || s.party_size.min > s.party_size.max)
    problems.push('Party size: from 1 to 10, the smallest first.');
  s.service_hours.forEach((w, i) => {
    if (!HHMM.test(w.start) || !HHMM.test(w.last_seating)) problems.push(`Service hours, row ${i + 1}: times as HH:MM.`);
    else if (w.start > w.last_seating) problems.push(`Service hours, row ${i + 1}: the first seating before the last.`);
  });
  const names = new Set<string>();
  s.tables.forEach((t, i) => {
    if (!t.name.trim()) problems.push(`Tables, row ${i + 1}: a name.`);
    if (names.has(t.name)) problems.push(`Tables, row ${i + 1}: the name ${t.name} is taken.`);
    names.add(t.name);
    if (t.min_party < 1 || t.min_party > t.max_party) problems.push(`Tables, row ${i + 1}: seats from 1 up, the smallest first.`);
  });
  if (s.turn_times.length === 0) problems.push('Turn times: at least one.');
  s.turn_times.forEach((t, i) => {
    if (t.minutes < 15 || t.minutes > 600) problems.push(`Turn times, row ${i + 1}: 15 to 600 minutes.`);
  });
  for (const d of [...s.closed_dates, ...s.credit_card.dates]) if (!YMD.test(d)) problems.push(`The date ${d}: as YYYY-MM-DD.`);
  return problems;
}

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
const num = (e: Event) => Number((e.target as HTMLInputElement).value);
const text = (e: Event) => (e.target as HTMLInputElement).value;

/** The inventory edited in a form, checked before it is sent; Save replaces it. */
export function InventoryForm(props: { businessId: string; initial: Settings; saved: () => void }) {
  const [s, setS] = useState<Settings>(props.initial);
  const [closed, setClosed] = useState(props.initial.closed_dates.join('\n'));
  const [cardDates, setCardDates] = useState(props.initial.credit_card.dates.join('\n'));
  const [savedAt, setSavedAt] = useState<string | undefined>(undefined);
  const update = (change: Partial<Settings>) => setS({ ...s, ...change });
  const whole: Settings = { ...s, closed_dates: lines(closed), credit_card: { ...s.credit_card, dates: lines(cardDates) } };
  const problems = problemsOf(whole);
  const row = <K extends 'service_hours' | 'tables' | 'turn_times'>(key: K, i: number, change: Partial<Settings[K][number]>) =>
    update({ [key]: s[key].map((item, j) => (j === i ? { ...item, ...change } : item)) } as Partial<Settings>);
  const remove = (key: 'service_hours' | 'tables' | 'turn_times', i: number) =>
    update({ [key]: s[key].filter((_, j) => j !== i) } as Partial<Settings>);
  return (
    <Card title="Reservation inventory" wide>
      <form class="inventory" data-testid="inventory" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Online bookings</legend>
          <label>
            <input
              type="checkbox"
              checked={s.accepts_reservations}
              onChange={(e) => update({ accepts_reservations: (e.target as HTMLInputElement).checked })}
            />{' '}
            Takes reservations
          </label>
          <label>
            Party size from
            <input
              type="number"
              name="party_min"
              min={1}
              max={10}
              value={s.party_size.min}
              onInput={(e) => update({ party_size: { ...s.party_size, min: num(e) } })}
            />
          </label>
          <label>
            to
            <input
              type="number"
              name="party_max"
              min={1}
              max={10}
              value={s.party_size.max}
              onInput={(e) => update({ party_size: { ...s.party_size, max: num(e) } })}
            />
          </label>
          <label>
            Days ahead
            <input type="number" min={0} max={365} value={s.max_future_days} onInput={(e) => update({ max_future_days: num(e) })} />
          </label>
          <label>
            Notice (minutes)
            <input type="number" min={0} value={s.min_notice_minutes} onInput={(e) => update({ min_notice_minutes: num(e) })} />
          </label>
        </fieldset>
        <fieldset>
          <legend>Service hours (first and last seating)</legend>
          {s.service_hours.map((w, i) => (
            <div class="row">
              <select aria-label={`Day of row ${i + 1}`} value={w.day} onChange={(e) => row('service_hours', i, { day: num(e) })}>
                {DAYS.map((d, n) => (
                  <option value={n}>{d}</option>
                ))}
              </select>
              <input
                type="time"
                aria-label={`First seating of row ${i + 1}`}
                value={w.start}
                onInput={(e) => row('service_hours', i, { start: text(e) })}
              />
              <input
                type="time"
                aria-label={`Last seating of row ${i + 1}`}
                value={w.last_seating}
                onInput={(e) => row('service_hours', i, { last_seating: text(e) })}
              />
              <button type="button" onClick={() => remove('service_hours', i)}>
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => update({ service_hours: [...s.service_hours, { day: 0, start: '17:00', last_seating: '21:00' }] })}
          >
            Add hours
          </button>
        </fieldset>
        <fieldset>
          <legend>Tables</legend>
          {s.tables.map((t, i) => (
            <div class="row">
              <input
                aria-label={`Name of table ${i + 1}`}
                name={`table_name_${i}`}
                value={t.name}
                size={8}
                onInput={(e) => row('tables', i, { name: text(e) })}
              />
              <label>
                seats
                <input
                  type="number"
                  aria-label={`Fewest guests at table ${i + 1}`}
                  min={1}
                  value={t.min_party}
                  onInput={(e) => row('tables', i, { min_party: num(e) })}
                />
              </label>
              <label>
                to
                <input
                  type="number"
                  aria-label={`Most guests at table ${i + 1}`}
                  min={1}
                  value={t.max_party}
                  onInput={(e) => row('tables', i, { max_party: num(e) })}
                />
              </label>
              <button type="button" onClick={() => remove('tables', i)}>
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => update({ tables: [...s.tables, { name: `T${s.tables.length + 1}`, min_party: 1, max_party: 4 }] })}
          >
            Add table
          </button>
        </fieldset>
        <fieldset>
          <legend>Turn times (how long a party keeps its table)</legend>
          {s.turn_times.map((t, i) => (
            <div class="row">
              <label>
                parties up to
                <input
                  type="number"
                  aria-label={`Largest party of turn time ${i + 1} (empty: any)`}
                  min={1}
                  placeholder="any"
                  value={t.max_party ?? ''}
                  onInput={(e) => row('turn_times', i, { max_party: text(e) === '' ? null : num(e) })}
                />
              </label>
              <label>
                minutes
                <input
                  type="number"
                  name={`turn_minutes_${i}`}
                  min={15}
                  max={600}
                  value={t.minutes}
                  onInput={(e) => row('turn_times', i, { minutes: num(e) })}
                />
              </label>
              <button type="button" onClick={() => remove('turn_times', i)}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" onClick={() => update({ turn_times: [...s.turn_times, { max_party: null, minutes: 120 }] })}>
            Add turn time
          </button>
        </fieldset>
        <fieldset>
          <legend>Card and closed days</legend>
          <label>
            A card from parties of
            <input
              type="number"
              min={1}
              placeholder="never"
              value={s.credit_card.min_party ?? ''}
              onInput={(e) => update({ credit_card: { ...s.credit_card, min_party: text(e) === '' ? null : num(e) } })}
            />
          </label>
          <label>
            A card on these dates (YYYY-MM-DD, one a line)
            <textarea rows={3} value={cardDates} onInput={(e) => setCardDates(text(e))} />
          </label>
          <label>
            Closed on (YYYY-MM-DD, one a line)
            <textarea name="closed_dates" rows={3} value={closed} onInput={(e) => setClosed(text(e))} />
          </label>
        </fieldset>
      </form>
      {problems.length > 0 && (
        <ul class="problem" role="alert" data-testid="inventory-problems">
          {problems.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
      <Action
        need="partner_manager"
        label="Save inventory"
        kind="primary"
        testId="save-inventory"
        run={async () => {
          if (problems.length > 0) throw new Error('Fix the marked fields first.');
          await must(
            pbs.PUT('/admin/v1/businesses/{business_id}/reservation-settings', {
              params: { path: { business_id: props.businessId } },
              body: whole,
            }),
          );
          setSavedAt(new Date().toLocaleTimeString());
        }}
        done={props.saved}
      />
      {savedAt && (
        <span class="muted" data-testid="inventory-saved">
          {' '}
          Saved at {savedAt}.
        </span>
      )}
    </Card>
  );
}
