import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, CopyButton, Id, NewSecret, Page, Pager, Problem, Table, when, type IssuedSecrets } from '../ui';
import type { Params } from './shared';
import { PartnerInterfaces } from './partner-interfaces';
import { PartnerLinks } from './partner-links';
import { PartnerWebhook } from './partner-webhook';
import { PartnerReadiness } from './partner-readiness';

export function Partners(props: Params) {
  const [offset, setOffset] = useState(0);
  const list = useQuery(`partners:${offset}`, () => must(pbs.GET('/admin/v1/partners', { params: { query: { limit: 50, offset } } })));
  const ids = list.data?.partners.map((p) => p.id).join(',');
  const readiness = useQuery(ids ? `readiness:${ids}` : undefined, () =>
    must(pbs.GET('/admin/v1/readiness', { params: { query: { partner_ids: ids ?? '' } } })),
  );
  const scoreOf = (id: string) => readiness.data?.partners.find((r) => r.partner_id === id);
  const [byReadiness, setByReadiness] = useState(false);
  const selected = props.params.get('id') ?? undefined;
  const [name, setName] = useState('');
  return (
    <Page title="Partners">
      <Card>
        <div class="form">
          <label>
            New partner
            <input name="partner-name" placeholder="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <Action
            need="partner_manager"
            label="Create"
            kind="primary"
            run={async () => go('partners', { id: (await must(pbs.POST('/admin/v1/partners', { body: { name } }))).id })}
            done={() => (setName(''), list.reload())}
          />
        </div>
        <label>
          <input type="checkbox" name="by-readiness" checked={byReadiness} onChange={() => setByReadiness(!byReadiness)} /> Most ready first
        </label>
        {byReadiness ? (
          <Ranking />
        ) : (
          <>
            <Problem error={list.error} />
            <Table
              testId="partners"
              rows={list.data?.partners}
              columns={[
                { title: 'Name', cell: (p) => <a href={`#/partners?id=${p.id}`}>{p.name}</a> },
                { title: 'Status', cell: (p) => <Badge value={p.status} /> },
                {
                  title: 'Interfaces',
                  cell: (p) =>
                    Object.entries(p.interfaces)
                      .filter(([, v]) => v.enabled)
                      .map(([k]) => k)
                      .join(', ') || '—',
                },
                {
                  title: 'Readiness',
                  cell: (p) => {
                    const r = scoreOf(p.id);
                    return r ? `${r.score} %${r.approved ? ' · approved' : ''}` : '—';
                  },
                },
                { title: 'Created', cell: (p) => when(p.created_at) },
              ]}
            />
            <Pager offset={offset} limit={50} total={list.data?.total} onChange={setOffset} />
          </>
        )}
      </Card>
      {selected && <PartnerDetail id={selected} onChange={list.reload} />}
    </Page>
  );
}

/**
 * Every partner, most ready first (docs/readiness.md "Partners by readiness"): the server orders
 * all partners by their kept scores and summarises a page at a time.
 */
function Ranking() {
  const [offset, setOffset] = useState(0);
  const ranking = useQuery(`ranking:${offset}`, () =>
    must(pbs.GET('/admin/v1/readiness/ranking', { params: { query: { limit: 50, offset } } })),
  );
  return (
    <>
      <Problem error={ranking.error} />
      <Table
        testId="partners-by-readiness"
        rows={ranking.data?.partners}
        columns={[
          { title: 'Name', cell: (r) => <a href={`#/partners?id=${r.partner_id}`}>{r.name}</a> },
          { title: 'Readiness', cell: (r) => `${r.score} %${r.ready ? ' · ready' : ''}` },
          { title: 'By interface', cell: (r) => r.interfaces.map((i) => `${i.interface} ${i.score} %`).join(', ') },
          { title: 'Approved', cell: (r) => (r.approved ? <Badge value="approved" /> : '—') },
        ]}
      />
      <Pager offset={offset} limit={50} total={ranking.data?.total} onChange={setOffset} />
    </>
  );
}

function PartnerDetail(props: { id: string; onChange: () => void }) {
  const partner_id = props.id;
  const path = { partner_id };
  const partner = useQuery(`partner:${partner_id}`, () => must(pbs.GET('/admin/v1/partners/{partner_id}', { params: { path } })));
  const credentials = useQuery(`credentials:${partner_id}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/credentials', { params: { path } })),
  );
  const [secret, setSecret] = useState<IssuedSecrets | undefined>(undefined);
  const [portalLink, setPortalLink] = useState<{ url: string; expires_at: string } | undefined>(undefined);
  const p = partner.data;
  const reload = () => (partner.reload(), credentials.reload(), props.onChange());
  return (
    <div class="grid">
      <Card title={p ? p.name : 'Partner'} wide>
        <Problem error={partner.error} />
        {p && (
          <>
            <div class="actions">
              <Id value={p.id} />
              <Badge value={p.status} />
              {p.status === 'active' ? (
                <Action
                  need="partner_manager"
                  label="Disable"
                  kind="danger"
                  run={() => must(pbs.POST('/admin/v1/partners/{partner_id}/disable', { params: { path } }))}
                  done={reload}
                />
              ) : (
                <Action
                  need="partner_manager"
                  label="Enable"
                  run={() => must(pbs.POST('/admin/v1/partners/{partner_id}/enable', { params: { path } }))}
                  done={reload}
                />
              )}
              <Action
                need="support"
                label="Portal link"
                testId="portal-link"
                run={async () => setPortalLink(await must(pbs.POST('/admin/v1/partners/{partner_id}/portal-links', { params: { path } })))}
              />
              <Action
                need="support"
                label="End portal sessions"
                kind="danger"
                run={() => must(pbs.DELETE('/admin/v1/partners/{partner_id}/portal-sessions', { params: { path } }))}
              />
            </div>
            {portalLink && (
              <p class="secret">
                Give the partner this sign-in link (single use, until {when(portalLink.expires_at)}):{' '}
                <code data-testid="portal-url">{portalLink.url}</code> <CopyButton value={portalLink.url} label="Copy the portal link" />
              </p>
            )}
            <PartnerInterfaces partnerId={partner_id} interfaces={p.interfaces} changed={reload} />
          </>
        )}
      </Card>
      <Card title="Credentials" wide>
        <div class="actions">
          {(['api_key', 'basic', 'oauth_client'] as const).map((kind) => (
            <Action
              need="partner_manager"
              label={`Issue ${kind}`}
              run={async () =>
                setSecret(await must(pbs.POST('/admin/v1/partners/{partner_id}/credentials', { params: { path }, body: { kind } })))
              }
              done={credentials.reload}
            />
          ))}
        </div>
        {secret && <NewSecret issued={secret} onDismiss={() => setSecret(undefined)} />}
        <Table
          rows={credentials.data?.credentials}
          columns={[
            { title: 'Kind', cell: (c) => c.kind },
            { title: 'Public id', cell: (c) => <code>{c.public_id}</code> },
            { title: 'Created', cell: (c) => when(c.created_at) },
            { title: 'State', cell: (c) => <Badge value={c.revoked_at ? 'revoked' : 'active'} /> },
            {
              title: '',
              cell: (c) =>
                c.revoked_at ? null : (
                  <span class="actions">
                    <Action
                      need="partner_manager"
                      label="Roll (old secret 24 h)"
                      testId={`roll-${c.id}`}
                      run={async () =>
                        setSecret(
                          await must(
                            pbs.POST('/admin/v1/credentials/{credential_id}/rotate', {
                              params: { path: { credential_id: c.id } },
                              body: { grace_seconds: 86_400 },
                            }),
                          ),
                        )
                      }
                      done={credentials.reload}
                    />
                    <Action
                      need="partner_manager"
                      label="Revoke"
                      kind="danger"
                      run={() => must(pbs.DELETE('/admin/v1/credentials/{credential_id}', { params: { path: { credential_id: c.id } } }))}
                      done={credentials.reload}
                    />
                  </span>
                ),
            },
          ]}
        />
      </Card>
      <PartnerLinks partnerId={partner_id} changed={props.onChange} />
      <RedirectUris partnerId={partner_id} />
      <PartnerWebhook partnerId={partner_id} />
      <PartnerReadiness partnerId={partner_id} />
    </div>
  );
}

/**
 * Where the partner's app receives business users' authorization codes (docs/owners.md "Redirect
 * URIs"): one per line, matched exactly.
 */
function RedirectUris(props: { partnerId: string }) {
  const path = { partner_id: props.partnerId };
  const uris = useQuery(`redirect-uris:${props.partnerId}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/redirect-uris', { params: { path } })),
  );
  const [text, setText] = useState<string | undefined>(undefined);
  const shown = text ?? uris.data?.redirect_uris.join('\n') ?? '';
  return (
    <Card title="OAuth redirect URIs">
      <p class="muted">
        Where its app receives business users’ authorization codes (the Leads API), one per line, matched exactly. None: in the sandbox, any
        loopback address.
      </p>
      <Problem error={uris.error} />
      <div class="form">
        <label>
          Redirect URIs
          <textarea name="redirect-uris" rows={3} value={shown} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
        </label>
        <Action
          need="partner_manager"
          label="Save"
          testId="save-redirect-uris"
          run={() =>
            must(
              pbs.PUT('/admin/v1/partners/{partner_id}/redirect-uris', {
                params: { path },
                body: {
                  redirect_uris: shown
                    .split('\n')
                    .map((line) => line.trim())
                    .filter((line) => line !== ''),
                },
              }),
            )
          }
          done={() => (setText(undefined), uris.reload())}
        />
      </div>
    </Card>
  );
}
