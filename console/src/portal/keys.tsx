import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { useQuery } from '../hooks';
import { Action, Badge, Card, NewSecret, Page, Problem, Table, when, type IssuedSecrets } from '../ui';
import type { Params } from '../pages/shared';

/** How long a rolled credential's old secret may keep working, as the partner picks it. */
const OVERLAPS: Array<[string, number]> = [
  ['no overlap: the old secret stops now', 0],
  ['1 hour', 3_600],
  ['24 hours', 86_400],
  ['7 days', 7 * 86_400],
];

const KINDS: Record<string, string> = { api_key: 'API key', basic: 'Basic (username and password)', oauth_client: 'OAuth client' };

/**
 * Your credentials (docs/security.md "Credentials"): roll one for a new secret, shown once, with
 * the old one working for the overlap you pick while you deploy it; or revoke one at once. Either
 * ends your other portal sessions, as it would if the operator did it.
 */
export function PortalKeys(_props: Params) {
  const credentials = useQuery('credentials', () => must(pbs.GET('/portal/v1/credentials')));
  const [overlap, setOverlap] = useState(86_400);
  const [issued, setIssued] = useState<IssuedSecrets | undefined>(undefined);
  return (
    <Page title="Your keys">
      <Card title="Credentials" wide>
        <p class="muted">
          Rolling a credential gives it a new secret, shown once here; the old one keeps working for the overlap chosen below, so you can
          deploy the new one first. Revoking stops it at once.
        </p>
        <form class="form" onSubmit={(e) => e.preventDefault()}>
          <label>
            overlap when rolling
            <select name="overlap" value={String(overlap)} onChange={(e) => setOverlap(Number((e.target as HTMLSelectElement).value))}>
              {OVERLAPS.map(([label, seconds]) => (
                <option value={String(seconds)}>{label}</option>
              ))}
            </select>
          </label>
        </form>
        {issued && <NewSecret issued={issued} onDismiss={() => setIssued(undefined)} />}
        <Problem error={credentials.error} />
        <Table
          testId="credentials"
          rows={credentials.data?.credentials}
          empty="You have no credentials; ask your operator to issue one."
          columns={[
            { title: 'Kind', cell: (c) => KINDS[c.kind] ?? c.kind },
            { title: 'Label', cell: (c) => c.label ?? '' },
            { title: 'Identifier', cell: (c) => <code>{c.public_id}</code> },
            { title: 'Created', cell: (c) => when(c.created_at) },
            { title: 'Rolled', cell: (c) => when(c.rotated_at) },
            {
              title: 'State',
              cell: (c) => (
                <>
                  <Badge value={c.revoked_at ? 'revoked' : 'active'} />
                  {c.previous_secret_valid_until && !c.revoked_at && (
                    <span class="muted"> old secret until {when(c.previous_secret_valid_until)}</span>
                  )}
                </>
              ),
            },
            {
              title: '',
              cell: (c) =>
                c.revoked_at ? null : (
                  <span class="actions">
                    <Action
                      need="partner"
                      label="Roll"
                      testId={`roll-${c.id}`}
                      run={async () =>
                        setIssued(
                          await must(
                            pbs.POST('/portal/v1/credentials/{credential_id}/rotate', {
                              params: { path: { credential_id: c.id } },
                              body: { grace_seconds: overlap },
                            }),
                          ),
                        )
                      }
                      done={credentials.reload}
                    />
                    <Action
                      need="partner"
                      label="Revoke"
                      kind="danger"
                      testId={`revoke-${c.id}`}
                      confirm={`Revoke this ${KINDS[c.kind] ?? c.kind} (${c.public_id})? Calls made with it fail at once.`}
                      run={() =>
                        must(pbs.POST('/portal/v1/credentials/{credential_id}/revoke', { params: { path: { credential_id: c.id } } }))
                      }
                      done={credentials.reload}
                    />
                  </span>
                ),
            },
          ]}
        />
      </Card>
    </Page>
  );
}
