import './business-picker.css';
import { useEffect, useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { useQuery } from '../hooks';

let pickers = 0;

/**
 * Picks a business by name, as a type-ahead combobox (the WAI-ARIA combobox pattern: the input
 * owns a listbox of suggestions, the arrow keys move through them, Enter picks, Escape closes).
 * pbs suggests the first 20 businesses whose name starts with what was typed, however large the
 * catalogue (`GET /admin/v1/businesses?q=`); an id pasted whole is taken as it is. `onPick` gets
 * the id.
 */
export function BusinessPicker(props: { value: string | undefined; onPick: (id: string) => void; label?: string }) {
  const [listId] = useState(() => `business-options-${++pickers}`);
  const [text, setText] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  // The picked business's name, for the input and the line under it.
  const picked = useQuery(props.value ? `picked:${props.value}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses', { params: { query: { ids: props.value!, limit: 1 } } })),
  );
  const current = picked.data?.businesses[0];
  useEffect(() => setText(undefined), [props.value]);
  const typed = (text ?? '').trim();
  const suggestions = useQuery(open ? `picker:${typed}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses', { params: { query: { limit: 20, q: typed || undefined } } })),
  );
  const options = suggestions.data?.businesses ?? [];
  const choose = (id: string) => {
    setOpen(false);
    setText(undefined);
    props.onPick(id);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) return setOpen(true);
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (options.length ? (i + step + options.length) % options.length : 0));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (open && options[active]) choose(options[active].id);
      else if (typed) choose(typed);
    } else if (e.key === 'Escape') {
      setOpen(false);
      setText(undefined);
    }
  };
  const shown = text ?? (current ? current.name : (props.value ?? ''));
  const activeId = open && options[active] ? `${listId}-${active}` : undefined;
  return (
    <div class="picker">
      <label>
        {props.label ?? 'Business'}
        <input
          name="business"
          size={36}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={activeId}
          autocomplete="off"
          placeholder="type a name, or paste an id"
          value={shown}
          onFocus={() => setOpen(true)}
          onInput={(e) => {
            setText((e.target as HTMLInputElement).value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          // A click on a suggestion lands before the blur closes the list (pointerdown below).
          onBlur={() => setOpen(false)}
        />
      </label>
      {open && options.length === 0 && (
        <div class="picker-options muted" role="status">
          {suggestions.loading ? 'Looking…' : `No business starts with “${typed}”.`}
        </div>
      )}
      <ul
        id={listId}
        role="listbox"
        aria-label={`${props.label ?? 'Business'} suggestions`}
        class="picker-options"
        hidden={!open || options.length === 0}
      >
        {options.map((b, i) => (
          <li
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'active' : undefined}
            onPointerDown={(e) => {
              e.preventDefault();
              choose(b.id);
            }}
            onPointerEnter={() => setActive(i)}
          >
            <span>{b.name}</span> <span class="muted">{b.location.city}</span> <code>{b.id}</code>
          </li>
        ))}
      </ul>
      {current && (
        <span class="muted" data-testid="picked-business">
          {current.name}, {current.location.city} · <code>{current.id}</code>
        </span>
      )}
    </div>
  );
}
