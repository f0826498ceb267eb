import { useState } from 'preact/hooks';
import { useGet } from '../hooks';
import { Card, Id, Page, Pager, Problem, Table } from '../ui';
import { today, type Params } from './shared';

interface Business {
  id: string;
  alias: string;
  name: string;
  location: { city: string; country: string };
  categories: Array<{ title: string }>;
  rating: number;
  review_count: number;
  transactions: string[];
}

export function Businesses(props: Params) {
  const [offset, setOffset] = useState(0);
  const [city, setCity] = useState('');
  const list = useGet<{ total: number; businesses: Business[] }>(
    `/admin/v1/businesses?limit=50&offset=${offset}${city ? `&city=${encodeURIComponent(city)}` : ''}`,
  );
  const selected = props.params.get('id') ?? undefined;
  return (
    <Page title="Businesses">
      <Card>
        <div class="form">
          <label>
            City
            <input value={city} onChange={(e) => (setCity((e.target as HTMLInputElement).value), setOffset(0))} placeholder="any" />
          </label>
          <a href="#/imports">Import businesses…</a>
        </div>
        <Problem error={list.error} />
        <Table
          testId="businesses"
          rows={list.data?.businesses}
          columns={[
            { title: 'Name', cell: (b) => <a href={`#/businesses?id=${b.id}`}>{b.name}</a> },
            { title: 'City', cell: (b) => `${b.location.city}, ${b.location.country}` },
            { title: 'Categories', cell: (b) => b.categories.map((c) => c.title).join(', ') },
            { title: 'Rating', numeric: true, cell: (b) => `${b.rating} (${b.review_count})` },
            { title: 'Reservations', cell: (b) => (b.transactions.includes('restaurant_reservation') ? 'yes' : '') },
          ]}
        />
        <Pager offset={offset} limit={50} total={list.data?.total} onChange={setOffset} />
      </Card>
      {selected && <BusinessDetail id={selected} />}
    </Page>
  );
}

function BusinessDetail(props: { id: string }) {
  const business = useGet<Business>(`/admin/v1/businesses/${props.id}`);
  const settings = useGet<unknown>(`/admin/v1/businesses/${props.id}/reservation-settings`);
  const b = business.data;
  return (
    <div class="grid">
      <Card title={b ? b.name : 'Business'} wide>
        <Problem error={business.error} />
        {b && (
          <div class="actions">
            <Id value={b.id} />
            <a href={`#/reservations?business=${b.id}&date=${today()}`}>Reservations</a>
            <a href={`#/waitlist?business=${b.id}`}>Waitlist</a>
            <a href={`#/reviews?business=${b.id}`}>Reviews</a>
            <a href={`#/engagement?business=${b.id}`}>Engagement</a>
            <a href={`#/advertising?business=${b.id}`}>Advertising</a>
          </div>
        )}
      </Card>
      <Card title="Reservation inventory" wide>
        {settings.error ? <p class="muted">No reservation inventory.</p> : <pre tabIndex={0}>{JSON.stringify(settings.data, null, 2)}</pre>}
      </Card>
    </div>
  );
}
