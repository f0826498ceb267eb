import { useState } from 'preact/hooks';
import type { components } from '../../../packages/sdk/src/schema';
import { must, pbs, type Answer } from '../client';
import { Action, Card } from '../ui';

type Business = Answer<'/admin/v1/businesses/{business_id}', 'get'>;
type BusinessInput = components['schemas']['BusinessInput'];
type Opening = NonNullable<BusinessInput['hours']>[number]['open'][number];

/** Days as the contract numbers them (docs/contract/search.md: 0 is Monday). */
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const RANGE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;

/** A day's opening ranges as people write them: `11:30-14:30, 17:00-22:00`; blank is closed. */
function rangesOf(open: Opening[], day: number): string {
  const hhmm = (t: string) => `${t.slice(0, 2)}:${t.slice(2)}`;
  return open
    .filter((o) => o.day === day)
    .map((o) => `${hhmm(o.start)}-${hhmm(o.end)}`)
    .join(', ');
}

/** The week's ranges back as the API takes them, or what is wrong with one. */
function openingsOf(week: string[]): Opening[] | string {
  const open: Opening[] = [];
  for (let day = 0; day < 7; day++) {
    for (const range of week[day]
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean)) {
      const m = RANGE.exec(range);
      if (!m) return `${DAYS[day]}: “${range}” is not HH:MM-HH:MM`;
      const start = `${m[1]}${m[2]}`;
      const end = `${m[3]}${m[4]}`;
      open.push({ day, start, end, is_overnight: end <= start });
    }
  }
  return open;
}

const TRANSACTIONS = ['pickup', 'delivery', 'restaurant_reservation'] as const;
const isTransaction = (t: string): t is (typeof TRANSACTIONS)[number] => (TRANSACTIONS as readonly string[]).includes(t);

/** Categories as people write them, one a line: `alias: Title`. */
const categoriesText = (b: Business) => b.categories.map((c) => `${c.alias ?? ''}: ${c.title ?? ''}`).join('\n');

function categoriesOf(text: string): BusinessInput['categories'] | string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const out: NonNullable<BusinessInput['categories']> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const alias = (colon < 0 ? line : line.slice(0, colon)).trim();
    const title = (colon < 0 ? line : line.slice(colon + 1)).trim();
    if (!alias || !title) return `“${line}” is not alias: Title`;
    out.push({ alias, title });
  }
  return out;
}

/**
 * A business edited in the console: name, address, phone, price, categories, opening hours, and
 * whether it closed for good. Saved whole through `PUT /admin/v1/businesses/{id}` (the API's
 * replace, with the same checks), keeping every field the form does not show.
 */
export function BusinessEditForm(props: { business: Business; saved: () => void; cancel: () => void }) {
  const b = props.business;
  const open: Opening[] = (b.hours[0]?.open as Opening[] | undefined) ?? [];
  const [form, setForm] = useState({
    name: b.name,
    address1: b.location.address1 ?? '',
    address2: b.location.address2 ?? '',
    city: b.location.city,
    zip_code: b.location.zip_code,
    state: b.location.state,
    country: b.location.country,
    phone: b.phone ?? '',
    price: b.price ?? '',
    categories: categoriesText(b),
    closed: b.is_closed ?? false,
  });
  const [week, setWeek] = useState(DAYS.map((_, day) => rangesOf(open, day)));
  const text = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const save = async () => {
    const hours = openingsOf(week);
    const categories = categoriesOf(form.categories);
    // Said beside the Save button, as the API's refusals are.
    if (typeof hours === 'string') throw new Error(hours);
    if (typeof categories === 'string') throw new Error(categories);
    const { display_address: _derived, ...location } = b.location;
    const body: BusinessInput = {
      ...b,
      name: form.name.trim(),
      is_closed: form.closed,
      categories,
      price: form.price || undefined,
      phone: form.phone.trim(),
      // Said again from the phone by pbs when it changed.
      display_phone: form.phone.trim() === (b.phone ?? '') ? b.display_phone : undefined,
      location: {
        ...location,
        address1: form.address1.trim() || null,
        address2: form.address2.trim() || null,
        city: form.city.trim(),
        zip_code: form.zip_code.trim(),
        state: form.state.trim(),
        country: form.country.trim().toUpperCase(),
      },
      transactions: b.transactions?.filter(isTransaction),
      coordinates: { latitude: b.coordinates.latitude ?? null, longitude: b.coordinates.longitude ?? null },
      hours: [{ hours_type: 'REGULAR', open: hours }],
    };
    await must(pbs.PUT('/admin/v1/businesses/{business_id}', { params: { path: { business_id: b.id } }, body }));
  };
  const field = (name: keyof typeof form, label: string, extra: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input name={name} value={String(form[name])} onInput={text(name)} {...extra} />
    </label>
  );
  return (
    <Card title="Edit the business" wide>
      <form class="form business-edit" data-testid="business-edit" onSubmit={(e) => e.preventDefault()}>
        {field('name', 'name', { required: true, maxLength: 200 })}
        {field('address1', 'address')}
        {field('address2', 'address, second line')}
        {field('city', 'city', { required: true })}
        {field('zip_code', 'postal code')}
        {field('state', 'state or province', { maxLength: 3 })}
        {field('country', 'country (2 letters)', { maxLength: 2 })}
        {field('phone', 'phone (+1…)')}
        <label>
          price
          <select name="price" value={form.price} onChange={text('price')}>
            {['', '$', '$$', '$$$', '$$$$'].map((p) => (
              <option value={p}>{p || 'none'}</option>
            ))}
          </select>
        </label>
        <label class="wide">
          categories, one a line (alias: Title)
          <textarea name="categories" rows={3} value={form.categories} onInput={text('categories')} />
        </label>
        <fieldset class="wide">
          <legend>Opening hours (HH:MM-HH:MM, several with commas; blank is closed)</legend>
          {DAYS.map((day, i) => (
            <label class="day">
              {day}
              <input
                name={`hours-${i}`}
                value={week[i]}
                placeholder="closed"
                onInput={(e) => setWeek(week.map((w, j) => (j === i ? (e.target as HTMLInputElement).value : w)))}
              />
            </label>
          ))}
        </fieldset>
        <label class="check wide">
          <input
            type="checkbox"
            name="is_closed"
            checked={form.closed}
            onChange={(e) => setForm({ ...form, closed: (e.target as HTMLInputElement).checked })}
          />{' '}
          Closed for good (search leaves it out; reservations and the waitlist refuse it)
        </label>
      </form>
      <div class="actions">
        <Action need="partner_manager" label="Save" kind="primary" testId="save-business" run={save} done={props.saved} />
        <button onClick={props.cancel}>Cancel</button>
      </div>
    </Card>
  );
}
