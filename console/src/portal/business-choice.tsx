import { must, pbs } from '../client';
import { Combobox, type Choice } from '../combobox';
import { useQuery } from '../hooks';

/** The businesses the partner may act for (the first 1,000), as the portal reads them. */
function useLinkedBusinesses() {
  const linked = useQuery('portal-linked-businesses', () => must(pbs.GET('/portal/v1/businesses', { params: { query: { limit: 1000 } } })));
  return linked.data?.businesses ?? [];
}

/** The partner's linked businesses' names by id, for tables that show a name beside an id. */
export function useYourBusinessNames(): (id: string) => string | undefined {
  const all = useLinkedBusinesses();
  return (id) => all.find((b) => b.business_id === id)?.name ?? undefined;
}

/**
 * One of the businesses the partner may act for, picked by name (or alias, or id) as it is typed;
 * left empty, none ("any business" in a fault rule, the placeholder in a test event). The first
 * 1,000 linked businesses are offered; an id typed out whole is taken as it is.
 */
export function YourBusiness(props: { value: string; onPick: (id: string) => void; label?: string }) {
  const all = useLinkedBusinesses();
  const choice = (b: (typeof all)[number]): Choice => ({
    id: b.business_id,
    name: b.name ?? b.business_id,
    show: (
      <>
        <span>{b.name ?? '—'}</span> <code>{b.business_id}</code>
      </>
    ),
  });
  const current = all.find((b) => b.business_id === props.value);
  return (
    <Combobox
      label={props.label ?? 'business (optional)'}
      name="business_id"
      value={props.value || undefined}
      onPick={props.onPick}
      anyLabel="any business"
      named={current && choice(current)}
      suggestKey={(typed) => `portal-business-choices:${all.length}:${typed.toLowerCase()}`}
      suggest={async (typed) => {
        const t = typed.toLowerCase();
        const found = all.filter((b) => `${b.name ?? ''} ${b.alias ?? ''} ${b.business_id}`.toLowerCase().includes(t)).slice(0, 20);
        // An id or alias typed out whole that is not among the first 1,000 offered is still a choice.
        return found.length > 0 || typed === '' ? found.map(choice) : [{ id: typed, name: typed, show: <code>{typed}</code> }];
      }}
      nothingFound={() => 'No business is linked to you yet.'}
    />
  );
}
