import { useState } from 'preact/hooks';
import { importLinks, must, pbs } from '../client';
import { useQuery } from '../hooks';
import { Action, Card, Pager, Problem, Table, when } from '../ui';
import { BusinessPicker } from './business-picker';

/**
 * The businesses a partner may act for (docs/contract/common.md §1.4): linked one at a time with
 * a comment, several picked by name at once, or from the onboarding CSV; and unlinked. Several at
 * once go as one CSV import, so they are linked all or none, as the API does it.
 */
export function PartnerLinks(props: { partnerId: string; changed: () => void }) {
  const path = { partner_id: props.partnerId };
  const [offset, setOffset] = useState(0);
  const links = useQuery(`links:${props.partnerId}:${offset}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/businesses', { params: { path, query: { limit: 10, offset } } })),
  );
  const [picked, setPicked] = useState<string[]>([]);
  const [comment, setComment] = useState('');
  const [said, setSaid] = useState<string | undefined>(undefined);
  const reload = () => (links.reload(), props.changed());
  const linkPicked = async () => {
    if (picked.length === 1) {
      await must(
        pbs.PUT('/admin/v1/partners/{partner_id}/businesses/{business_id}', {
          params: { path: { ...path, business_id: picked[0] } },
          body: { comment: comment || null },
        }),
      );
      setSaid('Linked 1 business.');
    } else {
      const csv = picked.map((id) => `${id},${csvField(comment)}`).join('\n');
      setSaid(`Linked ${businesses((await importLinks(props.partnerId, csv)).linked)}.`);
    }
    setPicked([]);
    setComment('');
  };
  return (
    <Card title="Businesses it may act for" wide>
      <Problem error={links.error} />
      <div class="form" data-testid="link-form">
        <BusinessPicker
          label="Add a business"
          value={undefined}
          onPick={(id) => setPicked(picked.includes(id) ? picked : [...picked, id])}
        />
        <label>
          comment
          <input name="link-comment" value={comment} maxLength={1000} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {picked.length > 0 && (
        <p data-testid="picked-links">
          To link:{' '}
          {picked.map((id) => (
            <span class="chip">
              <code>{id}</code>{' '}
              <button aria-label={`Leave out ${id}`} onClick={() => setPicked(picked.filter((p) => p !== id))}>
                ×
              </button>
            </span>
          ))}{' '}
          <Action
            need="partner_manager"
            label={`Link ${picked.length}`}
            kind="primary"
            testId="link-picked"
            run={linkPicked}
            done={reload}
          />
        </p>
      )}
      <div class="form">
        <label>
          onboarding CSV (business id, optional comment; all or nothing)
          <input
            type="file"
            name="links-csv"
            accept=".csv,text/csv"
            onChange={async (e) => {
              const input = e.target as HTMLInputElement;
              const file = input.files?.[0];
              if (!file) return;
              try {
                setSaid(`Linked ${businesses((await importLinks(props.partnerId, await file.text())).linked)} from ${file.name}.`);
                reload();
              } catch (error) {
                setSaid(error instanceof Error ? `Nothing was linked: ${error.message}` : 'Nothing was linked.');
              } finally {
                input.value = '';
              }
            }}
          />
        </label>
      </div>
      {said && (
        <p role="status" data-testid="links-said">
          {said}
        </p>
      )}
      <Table
        testId="links"
        rows={links.data?.businesses}
        columns={[
          { title: 'Business', cell: (b) => <a href={`#/businesses?id=${b.business_id}`}>{b.name}</a> },
          { title: 'Linked', cell: (b) => when(b.linked_at) },
          { title: 'Comment', cell: (b) => b.comment ?? '' },
          {
            title: '',
            cell: (b) => (
              <Action
                need="partner_manager"
                label="Unlink"
                kind="danger"
                testId={`unlink-${b.business_id}`}
                run={() =>
                  must(
                    pbs.DELETE('/admin/v1/partners/{partner_id}/businesses/{business_id}', {
                      params: { path: { ...path, business_id: b.business_id } },
                    }),
                  )
                }
                done={reload}
              />
            ),
          },
        ]}
        empty="No business linked."
      />
      <Pager offset={offset} limit={10} total={links.data?.total} onChange={setOffset} />
    </Card>
  );
}

/** "1 business", "2 businesses". */
const businesses = (n: number) => `${n} business${n === 1 ? '' : 'es'}`;

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
