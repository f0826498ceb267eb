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
  /** Above the pages: the console's "find anything". */
  search?: ComponentChildren;
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
          {props.search}
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

/**
 * A sign-in form with one secret field: `submit` answers undefined when signed in, or the
 * problem to show.
 */
export function SecretSignIn(props: {
  title: string;
  children: ComponentChildren;
  name: string;
  placeholder: string;
  submit: (secret: string) => Promise<string | undefined>;
}) {
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState('');
  return (
    <form
      class="login"
      onSubmit={async (event) => {
        event.preventDefault();
        const refused = await props.submit(secret.trim());
        if (refused) setProblem(refused);
        else setSecret('');
      }}
    >
      <h1>{props.title}</h1>
      <p class="muted">{props.children}</p>
      <input
        type="password"
        name={props.name}
        placeholder={props.placeholder}
        autocomplete="off"
        value={secret}
        onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
      />
      <button class="primary" type="submit">
        Sign in
      </button>
      {problem && <p class="problem">{problem}</p>}
    </form>
  );
}
