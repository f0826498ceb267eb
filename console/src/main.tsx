import { FindAnything } from './find';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onLoggedOut, signedIn as hasSession, signIn } from './api';
import { must, pbs } from './client';
import { useRoute } from './hooks';
import { pages } from './pages';
import './styles.css';
import './editing.css';
import { SecretSignIn, Shell } from './shell';

function Login(props: { onIn: () => void }) {
  return (
    <SecretSignIn
      title="pbs operator console"
      name="token"
      placeholder="pbs_admin_…"
      submit={async (token) => {
        if (!(await signIn(token))) return 'That token is not the operator token.';
        props.onIn();
        return undefined;
      }}
    >
      Sign in with the operator token (printed by pbs at its first start, or PBS_ADMIN_TOKEN). This browser then stays signed in (12 hours
      unless PBS_OPERATOR_SESSION_HOURS says otherwise) with an HttpOnly cookie; the token is not kept.
    </SecretSignIn>
  );
}

function App() {
  // undefined: asking pbs whether this browser has a session.
  const [signedIn, setSignedIn] = useState<boolean | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    void hasSession().then(setSignedIn);
    return onLoggedOut(() => setSignedIn(false));
  }, []);
  if (signedIn === undefined) return <p class="muted">Loading…</p>;
  if (!signedIn) return <Login onIn={() => setSignedIn(true)} />;
  const current = pages.find((p) => p.id === route.page) ?? pages[0];
  const Current = current.component;
  return (
    <Shell
      brand={
        <>
          pbs <small>operator console</small>
        </>
      }
      pages={pages}
      current={current}
      search={<FindAnything />}
      footer={
        <>
          <p class="session">
            <a href="/docs" target="_blank" rel="noopener">
              API reference
            </a>
          </p>
          <button class="logout" onClick={() => void must(pbs.DELETE('/admin/v1/session')).finally(() => setSignedIn(false))}>
            Sign out
          </button>
        </>
      }
    >
      <Current params={route.params} />
    </Shell>
  );
}

render(<App />, document.getElementById('app')!);
