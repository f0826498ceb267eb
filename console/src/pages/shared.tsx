import type { FunctionComponent } from 'preact';
import { must, pbs } from '../client';
import { Combobox } from '../combobox';
import { useQuery } from '../hooks';

/** What the console's pages share: their props, date helpers, names by id and filters (the business picker is business-picker.tsx). */

export type Params = { params: URLSearchParams };
/** A page of the console; `need`: the least role that sees it in the navigation (pbs refuses its changes below it regardless). */
export type PageDef = { id: string; title: string; component: FunctionComponent<Params>; need?: 'support' | 'partner_manager' | 'admin' };

export const today = () => new Date().toISOString().slice(0, 10);
export const shortDay = (date: string) => date.slice(5);
export const shortMinute = (iso: string) => iso.slice(11, 16);

/** Partners' names by id (every partner, one call): tables show a name beside or instead of an id. */
export function usePartnerNames(): (id: string | null | undefined) => string {
  const partners = useQuery('partner-names', () => must(pbs.GET('/admin/v1/partners', { params: { query: { limit: 1000 } } })));
  return (id) => (id ? (partners.data?.partners.find((p) => p.id === id)?.name ?? id) : '—');
}

/** Businesses' names for the ids a table shows (one call for up to 100). */
export function useBusinessNames(ids: string[]): (id: string) => string {
  const wanted = [...new Set(ids)].sort().slice(0, 100);
  const named = useQuery(wanted.length ? `business-names:${wanted.join(',')}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses', { params: { query: { ids: wanted.join(','), limit: 100 } } })),
  );
  return (id) => named.data?.businesses.find((b) => b.id === id)?.name ?? id;
}

/** A filter's select: "any", then the choices (value and label). */
export function FilterSelect(props: {
  label: string;
  name: string;
  value: string | undefined;
  choices: ReadonlyArray<readonly [string, string]>;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select name={props.name} value={props.value ?? ''} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">any</option>
        {props.choices.map(([value, label]) => (
          <option value={value}>{label}</option>
        ))}
      </select>
    </label>
  );
}

/**
 * A filter by partner, picked by name as it is typed (any part of it, any case), or "any" when
 * left empty. The partners are the ones the console knows by name (usePartnerNames' list).
 */
export function PartnerFilter(props: { value: string | undefined; onChange: (id: string) => void }) {
  const partners = useQuery('partner-names', () => must(pbs.GET('/admin/v1/partners', { params: { query: { limit: 1000 } } })));
  const all = partners.data?.partners ?? [];
  const choice = (p: (typeof all)[number]) => ({ id: p.id, name: p.name, show: <span>{p.name}</span> });
  const current = all.find((p) => p.id === props.value);
  return (
    <Combobox
      label="Partner"
      name="partner_id"
      value={props.value}
      onPick={props.onChange}
      anyLabel="any partner"
      named={current && choice(current)}
      // The list is loaded once; `all.length` in the key shows it once it is.
      suggestKey={(typed) => `partner-choices:${all.length}:${typed.toLowerCase()}`}
      suggest={async (typed) =>
        all
          .filter((p) => p.name.toLowerCase().includes(typed.toLowerCase()))
          .slice(0, 20)
          .map(choice)
      }
      nothingFound={(typed) => `No partner is named like “${typed}”.`}
    />
  );
}
