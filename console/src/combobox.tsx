import './combobox.css';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useQuery } from './hooks';

/** One suggestion: what is picked (`id`), what the input then shows (`name`), and how the list shows it. */
export interface Choice {
  id: string;
  name: string;
  show: ComponentChildren;
}

let comboboxes = 0;

/**
 * A type-ahead picker (the WAI-ARIA combobox pattern): the input owns a listbox of suggestions
 * for what was typed, the arrow keys move through them, Enter or a click picks, Escape closes.
 * `suggest(typed)` answers at most a screenful of suggestions (asked of pbs, or filtered from a
 * list already loaded); `named` is the picked one, shown in the input. With `anyLabel`, an
 * emptied input picks nothing (a filter's "any"); without, Enter on text that matches no
 * suggestion takes it as an id (a pasted one). Leaving the input otherwise keeps what was picked:
 * the input never shows text the page is not using.
 */
export function Combobox(props: {
  label: string;
  name: string;
  value: string | undefined;
  onPick: (id: string) => void;
  suggest: (typed: string) => Promise<Choice[]>;
  /** The key under which suggestions for `typed` are kept (they are loaded again when it changes). */
  suggestKey: (typed: string) => string;
  named: Choice | undefined;
  placeholder?: string;
  anyLabel?: string;
  nothingFound: (typed: string) => string;
}) {
  const [listId] = useState(() => `combobox-${++comboboxes}`);
  const [text, setText] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  useEffect(() => setText(undefined), [props.value]);
  const typed = (text ?? '').trim();
  const suggestions = useQuery(open ? props.suggestKey(typed) : undefined, () => props.suggest(typed));
  const options = suggestions.data ?? [];
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
      if (text !== undefined && typed === '' && props.anyLabel !== undefined) choose('');
      else if (open && options[active]) choose(options[active].id);
      else if (typed && props.anyLabel === undefined) choose(typed);
    } else if (e.key === 'Escape') {
      setOpen(false);
      setText(undefined);
    }
  };
  const shown = text ?? props.named?.name ?? props.value ?? '';
  return (
    <div class="combobox">
      <label>
        {props.label}
        <input
          name={props.name}
          size={32}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open && options[active] ? `${listId}-${active}` : undefined}
          autocomplete="off"
          placeholder={props.placeholder ?? props.anyLabel}
          value={shown}
          onFocus={() => setOpen(true)}
          onInput={(e) => {
            setText((e.target as HTMLInputElement).value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            setOpen(false);
            const exact = options.find((o) => o.name.toLowerCase() === typed.toLowerCase());
            // A filter emptied by hand means "any"; a name typed out in full picks it.
            if (text !== undefined && typed === '' && props.anyLabel !== undefined) {
              if (props.value) props.onPick('');
            } else if (text !== undefined && exact) choose(exact.id);
            else setText(undefined);
          }}
        />
      </label>
      {open && options.length === 0 && (
        <div class="combobox-options muted" role="status">
          {suggestions.loading ? 'Looking…' : props.nothingFound(typed)}
        </div>
      )}
      <ul
        id={listId}
        role="listbox"
        aria-label={`${props.label} suggestions`}
        class="combobox-options"
        hidden={!open || options.length === 0}
      >
        {options.map((choice, i) => (
          <li
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'active' : undefined}
            // Before the input's blur closes the list.
            onPointerDown={(e) => {
              e.preventDefault();
              choose(choice.id);
            }}
            onPointerEnter={() => setActive(i)}
          >
            {choice.show}
          </li>
        ))}
      </ul>
    </div>
  );
}
