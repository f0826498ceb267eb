import { FindAnything } from './find';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onLoggedOut, sessionOperator } from './api';
import { OperatorContext, roleRank, type SignedInOperator } from './operator';
import { SignIn, Setup } from './sign-in';
import { must, pbs } from './client';
import { useRoute } from './hooks';
import { pages } from './pages';
import './styles.css';
import './editing.css';
import { Shell } from './shell';

function App() {
  // undefined: asking pbs whether this browser has a session; null: it has none.
  const [operator, setOperator] = useState<SignedInOperator | null | undefined>(undefined);
  const route = useRoute();
  const refresh = () => void sessionOperator<SignedInOperator>().then((who) => setOperator(who ?? null));
  useEffect(() => {
    refresh();
    return onLoggedOut(() => setOperator(null));
  }, []);
  // An invitation's link: #/setup/<token>.
  if (route.page.startsWith('setup/') && !operator)
    return <Setup token={decodeURIComponent(route.page.slice('setup/'.length))} onDone={() => (location.hash = '#/overview')} />;
  if (operator === undefined) return <p class="muted">Loading…</p>;
  if (operator === null) return <SignIn onIn={refresh} />;
  const visible = pages.filter((p) => !p.need || roleRank[operator.role] >= roleRank[p.need]);
  const current = visible.find((p) => p.id === route.page) ?? visible[0];
  const Current = current.component;
  return (
    <Shell
      brand={
        <>
          pbs <small>operator console</small>
        </>
      }
      pages={visible}
      current={current}
      search={<FindAnything />}
      footer={
        <>
          <p class="session" data-testid="who">
            {operator.name} · {operator.role.replace('_', ' ')}
          </p>
          <p class="session">
            <a href="/docs" target="_blank" rel="noopener">
              API reference
            </a>
          </p>
          <button class="logout" onClick={() => void must(pbs.DELETE('/admin/v1/session')).finally(() => setOperator(null))}>
            Sign out
          </button>
        </>
      }
    >
      <OperatorContext.Provider value={operator}>
        <Current params={route.params} />
      </OperatorContext.Provider>
    </Shell>
  );
}

render(<App />, document.getElementById('app')!);
