import { useState } from 'preact/hooks';
import { must, pbs, type Answer } from '../client';
import { useQuery } from '../hooks';
import { useOperator } from '../operator';
import { Action, Badge, Card, CopyButton, Page, Problem, Secret, Table, when } from '../ui';

type Role = Answer<'/admin/v1/operators', 'get'>['operators'][number]['role'];
type Account = Answer<'/admin/v1/operators', 'get'>['operators'][number];
/** Every role, lowest first (a Record, so the compiler says when one is missing). */
const ROLES: Record<Role, string> = {
  viewer: 'reads everything, changes nothing, sees no secret',
  support: 'viewer, plus redeliveries, cancels for a restaurant, portal links',
  partner_manager: 'support, plus partners, interfaces, credentials, links, limits, promotions',
  admin: 'everything: accounts, imports, the clock, settings',
};
const ROLE_NAMES = Object.keys(ROLES).filter((r): r is Role => r in ROLES);
const isRole = (value: string): value is Role => value in ROLES;

/**
 * The team (docs/security.md "Operators and roles"): who may run this pbs, with which role, and
 * how they sign in; an admin invites, changes roles, disables, and sends new setup links. Every
 * person makes and revokes their own API tokens here.
 */
export function Team() {
  const me = useOperator();
  const isAdmin = me?.role === 'admin';
  const team = useQuery('operators', () => must(pbs.GET('/admin/v1/operators')));
  const [link, setLink] = useState<{ email: string; url: string } | undefined>(undefined);
  const [tokensOf, setTokensOf] = useState<Account | undefined>(undefined);
  return (
    <Page title="Team">
      {isAdmin && <Invite onInvited={(email, url) => (setLink({ email, url }), team.reload())} />}
      {link && <SetupLink email={link.email} url={link.url} onDismiss={() => setLink(undefined)} />}
      <Card title="Operators" wide>
        <Problem error={team.error} />
        <Table
          testId="operators"
          rows={team.data?.operators}
          empty="No operator account yet: the bootstrap token is the only way in."
          columns={[
            { title: 'Person', cell: (a) => (a.name === a.email ? a.email : `${a.name} <${a.email}>`) },
            {
              title: 'Role',
              cell: (a) =>
                isAdmin && a.id !== me?.account_id ? (
                  <select
                    aria-label={`Role of ${a.email}`}
                    value={a.role}
                    onChange={async (e) => {
                      const role = (e.target as HTMLSelectElement).value;
                      if (!isRole(role)) return;
                      await must(pbs.PATCH('/admin/v1/operators/{account_id}', { params: { path: { account_id: a.id } }, body: { role } }));
                      team.reload();
                    }}
                  >
                    {ROLE_NAMES.map((r) => (
                      <option value={r}>{r.replace('_', ' ')}</option>
                    ))}
                  </select>
                ) : (
                  a.role.replace('_', ' ')
                ),
            },
            { title: 'State', cell: (a) => <Badge value={a.state} /> },
            {
              title: 'Signs in with',
              cell: (a) => [a.sign_in.sso && 'SSO', a.sign_in.password && 'password + code'].filter(Boolean).join(', ') || '—',
            },
            { title: 'Last sign-in', cell: (a) => when(a.last_sign_in_at) },
            {
              title: '',
              cell: (a) => (
                <>
                  <button onClick={() => setTokensOf(a)}>Tokens</button>
                  {isAdmin && a.id !== me?.account_id && (
                    <>
                      <Action
                        need="admin"
                        label={a.state === 'disabled' ? 'Enable' : 'Disable'}
                        kind={a.state === 'disabled' ? undefined : 'danger'}
                        testId={`disable-${a.email}`}
                        confirm={
                          a.state === 'disabled' ? undefined : `Disable ${a.email}? Their sessions end and their tokens are revoked.`
                        }
                        run={() =>
                          must(
                            pbs.PATCH('/admin/v1/operators/{account_id}', {
                              params: { path: { account_id: a.id } },
                              body: { disabled: a.state !== 'disabled' },
                            }),
                          )
                        }
                        done={team.reload}
                      />
                      <Action
                        need="admin"
                        label="New setup link"
                        confirm={`A new setup link for ${a.email}? Their password and second factor stop working until they use it.`}
                        run={async () => {
                          const fresh = await must(
                            pbs.POST('/admin/v1/operators/{account_id}/setup-link', { params: { path: { account_id: a.id } } }),
                          );
                          setLink({ email: a.email, url: fresh.setup_url });
                        }}
                        done={team.reload}
                      />
                    </>
                  )}
                </>
              ),
            },
          ]}
        />
      </Card>
      {tokensOf && <AccountTokens account={tokensOf} onClose={() => setTokensOf(undefined)} />}
      {me?.account_id ? <MyTokens /> : <p class="muted">Signed in with the bootstrap token: personal API tokens belong to accounts.</p>}
    </Page>
  );
}

function Invite(props: { onInvited: (email: string, url: string) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [error, setError] = useState<unknown>(undefined);
  return (
    <Card title="Invite a person">
      <form
        class="form"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const invited = await must(pbs.POST('/admin/v1/operators', { body: { email: email.trim(), role } }));
            setEmail('');
            props.onInvited(invited.account.email, invited.setup_url);
          } catch (problem) {
            setError(problem);
          }
        }}
      >
        <label>
          E-mail
          <input name="email" type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Role
          <select
            name="role"
            value={role}
            onChange={(e) => {
              const picked = (e.target as HTMLSelectElement).value;
              if (isRole(picked)) setRole(picked);
            }}
          >
            {ROLE_NAMES.map((r) => (
              <option value={r}>
                {r.replace('_', ' ')}: {ROLES[r]}
              </option>
            ))}
          </select>
        </label>
        <button class="primary" type="submit" data-testid="invite">
          Invite
        </button>
      </form>
      <Problem error={error} />
    </Card>
  );
}

function SetupLink(props: { email: string; url: string; onDismiss: () => void }) {
  return (
    <div class="new-secret" role="status" data-testid="setup-link">
      <p>
        <strong>Shown once.</strong> Send this link to {props.email}: it lets them set a password and a second factor (single use, 7 days).
      </p>
      <p>
        <code>{props.url}</code> <CopyButton value={props.url} label="Copy the setup link" />
      </p>
      <button onClick={props.onDismiss}>Done</button>
    </div>
  );
}

function AccountTokens(props: { account: Account; onClose: () => void }) {
  const tokens = useQuery(`tokens:${props.account.id}`, () =>
    must(pbs.GET('/admin/v1/operators/{account_id}/tokens', { params: { path: { account_id: props.account.id } } })),
  );
  return (
    <Card title={`API tokens of ${props.account.email}`} wide>
      <Problem error={tokens.error} />
      <TokenTable tokens={tokens.data?.tokens} reload={tokens.reload} />
      <button onClick={props.onClose}>Close</button>
    </Card>
  );
}

type Token = Answer<'/admin/v1/me/tokens', 'get'>['tokens'][number];

function TokenTable(props: { tokens: Token[] | undefined; reload: () => void }) {
  return (
    <Table
      testId="tokens"
      rows={props.tokens}
      empty="No token."
      columns={[
        { title: 'Name', cell: (t) => t.name },
        { title: 'Role', cell: (t) => t.role.replace('_', ' ') },
        { title: 'Expires', cell: (t) => when(t.expires_at) },
        { title: 'Last used', cell: (t) => when(t.last_used_at) },
        {
          title: '',
          cell: (t) =>
            t.revoked_at ? (
              <Badge value="revoked" />
            ) : (
              <Action
                need="viewer"
                label="Revoke"
                kind="danger"
                confirm={`Revoke the token "${t.name}"? Scripts using it stop working at once.`}
                run={() => must(pbs.DELETE('/admin/v1/operator-tokens/{token_id}', { params: { path: { token_id: t.id } } }))}
                done={props.reload}
              />
            ),
        },
      ]}
    />
  );
}

/** The signed-in person's own tokens: made with a role up to theirs and an expiry, shown once. */
function MyTokens() {
  const me = useOperator();
  const tokens = useQuery('my-tokens', () => must(pbs.GET('/admin/v1/me/tokens')));
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role | ''>('');
  const [days, setDays] = useState('90');
  const [issued, setIssued] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const mine = ROLE_NAMES.slice(0, ROLE_NAMES.indexOf(me?.role ?? 'viewer') + 1);
  return (
    <Card title="Your API tokens" wide>
      <p class="muted">
        For scripts and the CLI: `Authorization: Bearer pbs_op_…`. A token holds at most your role, and ends with its expiry or your
        account.
      </p>
      <form
        class="form"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const made = await must(
              pbs.POST('/admin/v1/me/tokens', { body: { name: name.trim(), expires_in_days: Number(days), ...(role ? { role } : {}) } }),
            );
            setIssued(made.token);
            setName('');
            tokens.reload();
          } catch (problem) {
            setError(problem);
          }
        }}
      >
        <label>
          Name
          <input name="token-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Role
          <select
            name="token-role"
            value={role}
            onChange={(e) => {
              const picked = (e.target as HTMLSelectElement).value;
              setRole(isRole(picked) ? picked : '');
            }}
          >
            <option value="">yours ({me?.role.replace('_', ' ')})</option>
            {mine.map((r) => (
              <option value={r}>{r.replace('_', ' ')}</option>
            ))}
          </select>
        </label>
        <label>
          Days
          <input
            name="token-days"
            type="number"
            min={1}
            max={365}
            value={days}
            onInput={(e) => setDays((e.target as HTMLInputElement).value)}
          />
        </label>
        <button class="primary" type="submit" data-testid="new-token">
          Make a token
        </button>
      </form>
      <Problem error={error} />
      {issued && (
        <div class="new-secret" role="status" data-testid="new-token-secret">
          <p>
            <strong>Shown once.</strong> Copy it now: pbs keeps only its hash.
          </p>
          <Secret name="API token" value={issued} testId="token-value" />
          <button onClick={() => setIssued(undefined)}>I have copied it</button>
        </div>
      )}
      <TokenTable tokens={tokens.data?.tokens} reload={tokens.reload} />
    </Card>
  );
}
