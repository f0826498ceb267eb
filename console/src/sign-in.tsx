import { useEffect, useState } from 'preact/hooks';
import { ApiError, signIn } from './api';
import { must, pbs, type Answer } from './client';
import { SecretSignIn } from './shell';

type Methods = Answer<'/operator/sign-in-methods', 'get'>;
type TotpSecret = Answer<'/operator/setup/begin', 'post'>;

/**
 * The console's sign-in (docs/security.md "Operators and roles"): single sign-on when configured,
 * an account's e-mail, password and code, or the bootstrap token (the first admin's way in).
 */
export function SignIn(props: { onIn: () => void }) {
  const [methods, setMethods] = useState<Methods | undefined>(undefined);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState('');
  const [withToken, setWithToken] = useState(false);
  useEffect(() => {
    void must(pbs.GET('/operator/sign-in-methods')).then(setMethods, () => setMethods({ password: true, sso: null }));
  }, []);
  if (withToken)
    return (
      <SecretSignIn
        title="pbs operator console"
        name="token"
        placeholder="pbs_admin_…"
        submit={async (token) => {
          if (!(await signIn(token))) return 'That token is not the bootstrap token.';
          props.onIn();
          return undefined;
        }}
      >
        Sign in with the bootstrap token (printed by pbs at its first start, or PBS_ADMIN_TOKEN). This browser then stays signed in (12
        hours unless PBS_OPERATOR_SESSION_HOURS says otherwise) with an HttpOnly cookie; the token is not kept.
      </SecretSignIn>
    );
  return (
    <form
      class="login"
      onSubmit={async (event) => {
        event.preventDefault();
        setProblem('');
        try {
          await must(pbs.POST('/operator/sign-in', { body: { email: email.trim(), password, totp_code: code.trim() } }));
          props.onIn();
        } catch (error) {
          setProblem(error instanceof ApiError ? error.message : 'Signing in failed.');
          setCode('');
        }
      }}
    >
      <h1>pbs operator console</h1>
      {methods?.sso && (
        <p>
          <a class="button primary" href={methods.sso.url} data-testid="sso">
            Sign in with {methods.sso.name}
          </a>
        </p>
      )}
      <label>
        E-mail
        <input
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Code from your authenticator
        <input
          name="totp"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onInput={(e) => setCode((e.target as HTMLInputElement).value)}
        />
      </label>
      <button class="primary" type="submit" data-testid="sign-in">
        Sign in
      </button>
      {problem && <p class="problem">{problem}</p>}
      <p class="muted">
        <button type="button" class="link" onClick={() => setWithToken(true)} data-testid="with-token">
          Sign in with the bootstrap token instead
        </button>
      </p>
    </form>
  );
}

/** An invitation's setup link: the second factor to add, then a password and a first code. */
export function Setup(props: { token: string; onDone: () => void }) {
  const [secret, setSecret] = useState<TotpSecret | undefined>(undefined);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState('');
  useEffect(() => {
    must(pbs.POST('/operator/setup/begin', { body: { setup_token: props.token } })).then(setSecret, (error: unknown) =>
      setProblem(error instanceof ApiError ? error.message : 'This setup link cannot be used.'),
    );
  }, [props.token]);
  return (
    <form
      class="login"
      onSubmit={async (event) => {
        event.preventDefault();
        setProblem('');
        try {
          await must(pbs.POST('/operator/setup/finish', { body: { setup_token: props.token, password, totp_code: code.trim() } }));
          props.onDone();
        } catch (error) {
          setProblem(error instanceof ApiError ? error.message : 'The setup failed.');
        }
      }}
    >
      <h1>Set up your pbs account</h1>
      {secret && (
        <>
          <p>
            For <strong>{secret.email}</strong>. Add this key to your authenticator app (or open the link on your phone):
          </p>
          <p>
            <code data-testid="totp-secret">{secret.totp_secret}</code>
          </p>
          <p>
            <a href={secret.totp_uri}>Open in an authenticator app</a>
          </p>
          <label>
            Password (12 characters or more)
            <input
              name="new-password"
              type="password"
              autocomplete="new-password"
              minLength={12}
              required
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          </label>
          <label>
            The code your authenticator shows
            <input
              name="totp"
              inputMode="numeric"
              pattern="[0-9]{6}"
              required
              value={code}
              onInput={(e) => setCode((e.target as HTMLInputElement).value)}
            />
          </label>
          <button class="primary" type="submit" data-testid="finish-setup">
            Finish
          </button>
        </>
      )}
      {problem && <p class="problem">{problem}</p>}
    </form>
  );
}
