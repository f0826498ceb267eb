import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { PageDef } from './pages/shared';

/**
 * The frame of the console and the portal: a side navigation that collapses behind a "Menu"
 * button on a narrow screen (below 720 px), and the current page.
 */
export function Shell(props: {
  brand: ComponentChildren;
  pages: PageDef[];
  current: PageDef;
  footer: ComponentChildren;
  children: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div class="shell">
      <nav class={open ? 'side open' : 'side'} aria-label="Pages">
        <div class="brand">{props.brand}</div>
        <button class="menu-toggle" aria-expanded={open} aria-controls="nav-links" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <div id="nav-links" class="links">
          {props.pages.map((p) => (
            <a
              href={`#/${p.id}`}
              class={p.id === props.current.id ? 'active' : undefined}
              aria-current={p.id === props.current.id ? 'page' : undefined}
              onClick={() => setOpen(false)}
            >
              {p.title}
            </a>
          ))}
          {props.footer}
        </div>
      </nav>
      <main>{props.children}</main>
    </div>
  );
}
