import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { checkToken, onLoggedOut, session } from './api';
import { useRoute } from './hooks';
import { pages } from './pages';
import './styles.css';
import { Shell } from './shell';

function Login(props: { onIn: () => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState('');
  return (
    <form
      class="login"
      onSubmit={async (event) => {
        event.preventDefault();
        if (await checkToken(token.trim())) {
          session.set(token.trim());
          props.onIn();
        } else setProblem('That token is not the operator token.');
      }}
    >
      <h1>pbs operator console</h1>
      <p class="muted">Sign in with the operator token (printed by pbs at its first start, or PBS_ADMIN_TOKEN).</p>
      <input
        type="password"
        name="token"
        placeholder="pbs_admin_…"
        autocomplete="off"
        value={token}
        onInput={(e) => setToken((e.target as HTMLInputElement).value)}
      />
      <button class="primary" type="submit">
        Sign in
      </button>
      {problem && <p class="problem">{problem}</p>}
    </form>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.token()));
  const route = useRoute();
  useEffect(() => onLoggedOut(() => (session.clear(), setSignedIn(false))), []);
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
      footer={
        <button class="logout" onClick={() => (session.clear(), setSignedIn(false))}>
          Sign out
        </button>
      }
    >
      <Current params={route.params} />
    </Shell>
  );
}

render(<App />, document.getElementById('app')!);
