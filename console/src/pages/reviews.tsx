import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Card, Page, Pager, Problem, Table, when } from '../ui';
import type { Params } from './shared';
import { BusinessPicker } from './business-picker';

export function Reviews(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const [offset, setOffset] = useState(0);
  const reviews = useQuery(business ? `reviews:${business}:${offset}` : undefined, () =>
    must(
      pbs.GET('/admin/v1/businesses/{business_id}/reviews', { params: { path: { business_id: business! }, query: { limit: 20, offset } } }),
    ),
  );
  return (
    <Page title="Reviews">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => (setOffset(0), go('reviews', { business: id }))} />
          <a href="#/imports">Import reviews…</a>
        </div>
        {!business && <p class="muted">Pick a business to see its reviews.</p>}
        <Problem error={reviews.error} />
        <Table
          testId="reviews"
          rows={reviews.data?.reviews}
          empty="No review."
          columns={[
            { title: 'Rating', numeric: true, cell: (r) => '★'.repeat(r.rating) },
            { title: 'Text', cell: (r) => Object.entries(r.text).map(([locale, text]) => <div>{`${locale}: ${text}`}</div>) },
            { title: 'By', cell: (r) => r.user.name },
            { title: 'Written', cell: (r) => when(r.time_created) },
            { title: 'Response', cell: (r) => r.public_response?.text ?? '—' },
            {
              title: '',
              cell: (r) => (
                <Action
                  need="support"
                  label="Remove"
                  kind="danger"
                  run={() => must(pbs.DELETE('/admin/v1/reviews/{review_id}', { params: { path: { review_id: r.id } } }))}
                  done={reviews.reload}
                />
              ),
            },
          ]}
        />
        <Pager offset={offset} limit={20} total={reviews.data?.total} onChange={setOffset} />
      </Card>
    </Page>
  );
}
