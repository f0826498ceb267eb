import { must, pbs } from '../client';
import { Combobox } from '../combobox';
import { useQuery } from '../hooks';

/**
 * Picks a business by name: pbs suggests the first 20 whose name starts with what was typed,
 * however large the catalogue (`GET /admin/v1/businesses?q=`); an id pasted whole is taken as it
 * is. `onPick` gets the id.
 */
export function BusinessPicker(props: { value: string | undefined; onPick: (id: string) => void; label?: string }) {
  const picked = useQuery(props.value ? `picked:${props.value}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses', { params: { query: { ids: props.value!, limit: 1 } } })),
  );
  const current = picked.data?.businesses[0];
  return (
    <div class="picker">
      <Combobox
        label={props.label ?? 'Business'}
        name="business"
        value={props.value}
        onPick={props.onPick}
        placeholder="type a name, or paste an id"
        named={current && { id: current.id, name: current.name, show: current.name }}
        suggestKey={(typed) => `picker:${typed}`}
        suggest={async (typed) =>
          (await must(pbs.GET('/admin/v1/businesses', { params: { query: { limit: 20, q: typed || undefined } } }))).businesses.map(
            (b) => ({
              id: b.id,
              name: b.name,
              show: (
                <>
                  <span>{b.name}</span> <span class="muted">{b.location.city}</span> <code>{b.id}</code>
                </>
              ),
            }),
          )
        }
        nothingFound={(typed) => `No business starts with “${typed}”.`}
      />
      {current && (
        <span class="muted" data-testid="picked-business">
          {current.name}, {current.location.city} · <code>{current.id}</code>
        </span>
      )}
    </div>
  );
}
