import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, onLoggedOut, portalSignIn } from '../api';
import { must, pbs, type Answer } from '../client';
import { useRoute } from '../hooks';
import { when } from '../ui';
import { portalPages } from './pages';
import '../styles.css';
import '../editing.css';
import { SecretSignIn, Shell } from '../shell';

type Me = Answer<'/portal/v1/me', 'get'>;

/** Signed out: the operator's link signs in; in the sandbox the partner's own API key does too. */
function SignIn(props: { onIn: () => void; ended: boolean }) {
  return (
    <SecretSignIn
      title="pbs partner portal"
      name="api_key"
      placeholder="your API key"
      submit={async (key) => {
        try {
          await portalSignIn(key);
          props.onIn();
          return undefined;
        } catch (e) {
          return e instanceof ApiError && e.status === 404
            ? 'Signing in with an API key is for the sandbox only: ask your operator for a portal link.'
            : 'That is not an API key of an active partner.';
        }
      }}
    >
      {props.ended ? 'Your session has ended. ' : ''}Open the sign-in link your operator gave you (it works once, within 15 minutes). In the
      sandbox you may also sign in with your own API key.
    </SecretSignIn>
  );
}

function Portal() {
  // undefined: asking; null: signed out.
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const load = () => must(pbs.GET('/portal/v1/me')).then(setMe, () => setMe(null));
  useEffect(() => {
    void load();
    return onLoggedOut(() => (setEnded(true), setMe(null)));
  }, []);
  const route = useRoute();
  if (me === undefined) return <p class="muted">Loading…</p>;
  if (me === null) return <SignIn onIn={() => void load()} ended={ended} />;
  const current = portalPages.find((p) => p.id === route.page) ?? portalPages[0];
  const Current = current.component;
  return (
    <Shell
      brand={
        <span data-testid="partner">
          {me.partner_name}
          <small>partner portal · {me.partner_id}</small>
        </span>
      }
      pages={portalPages}
      current={current}
      footer={
        <>
          <p class="session">
            <a href="/docs" target="_blank" rel="noopener" data-testid="docs-link">
              API reference
            </a>
          </p>
          <p class="session">Session until {when(me.session_expires_at)}</p>
          <button class="logout" onClick={() => void must(pbs.POST('/portal/v1/sign-out')).finally(() => setMe(null))}>
            Sign out
          </button>
        </>
      }
    >
      <Current params={route.params} />
    </Shell>
  );
}

render(<Portal />, document.getElementById('app')!);
