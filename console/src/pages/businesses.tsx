import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { completeInventory, InventoryForm, STARTING_INVENTORY } from './inventory';
import { Badge, Card, Id, Page, Pager, Problem, Table, IfMay } from '../ui';
import { BusinessEditForm } from './business-edit';
import { today, type Params } from './shared';

/** The catalogue by name (type the start of one), and one business as its own view with its inventory. */
export function Businesses(props: Params) {
  const selected = props.params.get('id') ?? undefined;
  if (selected) return <BusinessDetail id={selected} />;
  return <BusinessList params={props.params} />;
}

function BusinessList(props: Params) {
  const [offset, setOffset] = useState(0);
  const q = props.params.get('q') ?? '';
  const city = props.params.get('city') ?? '';
  const list = useQuery(`businesses:${q}:${city}:${offset}`, () =>
    must(pbs.GET('/admin/v1/businesses', { params: { query: { limit: 50, offset, q: q || undefined, city: city || undefined } } })),
  );
  // The list follows what is typed, a moment after the typing stops (not only on Enter).
  const [typed, setTyped] = useState({ q, city });
  useEffect(() => {
    const settle = setTimeout(() => {
      if (typed.q.trim() !== q || typed.city.trim() !== city) {
        setOffset(0);
        go('businesses', { q: typed.q.trim() || undefined, city: typed.city.trim() || undefined });
      }
    }, 300);
    return () => clearTimeout(settle);
  }, [typed.q, typed.city]);
  return (
    <Page title="Businesses">
      <Card>
        <div class="form">
          <label>
            Name starts with (or an id)
            <input
              name="q"
              value={typed.q}
              onInput={(e) => setTyped({ ...typed, q: (e.target as HTMLInputElement).value })}
              placeholder="any"
            />
          </label>
          <label>
            City
            <input
              name="city"
              value={typed.city}
              onInput={(e) => setTyped({ ...typed, city: (e.target as HTMLInputElement).value })}
              placeholder="any"
            />
          </label>
          <a href="#/imports">Import businesses…</a>
        </div>
        <Problem error={list.error} />
        {list.data && (
          <p class="muted" role="status" data-testid="businesses-found">
            {list.data.total === 1 ? '1 business' : `${list.data.total.toLocaleString()} businesses`}
            {q ? ` whose name starts with “${q}” (or with that id)` : ''}
            {city ? ` in ${city}` : ''}
          </p>
        )}
        <Table
          testId="businesses"
          rows={list.data?.businesses}
          columns={[
            { title: 'Name', cell: (b) => <a href={`#/businesses?id=${b.id}`}>{b.name}</a> },
            { title: 'City', cell: (b) => `${b.location.city}, ${b.location.country}` },
            { title: 'Categories', cell: (b) => b.categories.map((c) => c.title).join(', ') },
            { title: 'Rating', numeric: true, cell: (b) => `${b.rating} (${b.review_count})` },
            { title: 'Reservations', cell: (b) => (b.transactions?.includes('restaurant_reservation') ? 'yes' : '') },
          ]}
        />
        <Pager offset={offset} limit={50} total={list.data?.total} onChange={setOffset} />
      </Card>
    </Page>
  );
}

function BusinessDetail(props: { id: string }) {
  const path = { business_id: props.id };
  const business = useQuery(`business:${props.id}`, () => must(pbs.GET('/admin/v1/businesses/{business_id}', { params: { path } })));
  const settings = useQuery(`inventory:${props.id}`, () =>
    must(pbs.GET('/admin/v1/businesses/{business_id}/reservation-settings', { params: { path } })),
  );
  const b = business.data;
  const missing = settings.error instanceof ApiError && settings.error.status === 404;
  const [editing, setEditing] = useState(false);
  return (
    <Page title={b ? b.name : 'Business'} actions={<a href="#/businesses">← All businesses</a>}>
      <Card wide>
        <Problem error={business.error} />
        {b && (
          <div class="actions">
            <Id value={b.id} />
            <span class="muted">
              {b.location.city}, {b.location.country} · {b.categories.map((c) => c.title).join(', ')}
            </span>
            <a href={`#/reservations?business=${b.id}&date=${today()}`}>Reservations</a>
            <a href={`#/waitlist?business=${b.id}`}>Waitlist</a>
            <a href={`#/reviews?business=${b.id}`}>Reviews</a>
            <a href={`#/engagement?business=${b.id}`}>Engagement</a>
            <a href={`#/advertising?business=${b.id}`}>Advertising</a>
            {b.is_closed && <Badge value="closed" />}
            {!editing && (
              <IfMay need="partner_manager">
                <button data-testid="edit-business" onClick={() => setEditing(true)}>
                  Edit
                </button>
              </IfMay>
            )}
          </div>
        )}
      </Card>
      {b && editing && (
        <BusinessEditForm key={b.id} business={b} saved={() => (setEditing(false), business.reload())} cancel={() => setEditing(false)} />
      )}
      {settings.data && (
        <InventoryForm key={props.id} businessId={props.id} initial={completeInventory(settings.data)} saved={settings.reload} />
      )}
      {missing && <InventoryForm key={`${props.id}-new`} businessId={props.id} initial={STARTING_INVENTORY} saved={settings.reload} />}
      {!missing && <Problem error={settings.error} />}
    </Page>
  );
}
