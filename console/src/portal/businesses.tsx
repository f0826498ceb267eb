import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Card, Id, Page, Pager, Problem, Table, when } from '../ui';
import type { Params } from '../pages/shared';

const LIMIT = 50;

/** The businesses you may act for, by name, with the ids and aliases your calls take. */
export function PortalBusinesses(props: Params) {
  const offset = Number(props.params.get('offset') ?? 0) || 0;
  const links = useQuery(`portal-businesses:${offset}`, () =>
    must(pbs.GET('/portal/v1/businesses', { params: { query: { limit: LIMIT, offset } } })),
  );
  return (
    <Page title="Your businesses">
      <Card>
        <p class="muted">
          The businesses your operator linked you to: the ones your calls may act for. A call about another answers 403 AUTHORIZATION_ERROR.
        </p>
        <Problem error={links.error} />
        <Table
          testId="businesses"
          rows={links.data?.businesses}
          empty="No business is linked to you yet: ask your operator."
          columns={[
            { title: 'Name', cell: (b) => b.name ?? '—' },
            { title: 'Id', cell: (b) => <Id value={b.business_id} /> },
            { title: 'Alias', cell: (b) => (b.alias ? <code>{b.alias}</code> : '—') },
            { title: 'Comment', cell: (b) => b.comment ?? '' },
            { title: 'Linked', cell: (b) => when(b.linked_at) },
          ]}
        />
        <Pager offset={offset} limit={LIMIT} total={links.data?.total} onChange={(o) => go('businesses', { offset: String(o) })} />
      </Card>
    </Page>
  );
}
