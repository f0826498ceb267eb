import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { must, pbs } from '../client';
import { EndpointForm, type EndpointBody } from '../endpoint-form';
import { useQuery } from '../hooks';
import { Action, Badge, Card, Problem, Secret, when, IfMay } from '../ui';

/**
 * A partner's webhook endpoint as the operator manages it: registered, changed (a new URL is
 * verified again), verified, removed; the signing secret masked, with reveal and copy.
 */
export function PartnerWebhook(props: { partnerId: string }) {
  const path = { partner_id: props.partnerId };
  const endpoint = useQuery(`webhook:${props.partnerId}`, () =>
    must(pbs.GET('/admin/v1/partners/{partner_id}/webhook', { params: { path } })),
  );
  const [editing, setEditing] = useState(false);
  const none = endpoint.error instanceof ApiError && endpoint.error.status === 404;
  const e = none ? undefined : endpoint.data;
  const save = (body: EndpointBody) =>
    must(
      pbs.PUT('/admin/v1/partners/{partner_id}/webhook', {
        params: { path },
        body: { ...body, client_id: body.client_id ?? props.partnerId },
      }),
    );
  const saved = () => (setEditing(false), endpoint.reload());
  return (
    <Card title="Webhook endpoint" wide>
      {!none && <Problem error={endpoint.error} />}
      {none && !editing && (
        <p class="muted">
          None registered.{' '}
          <IfMay need="partner_manager">
            <button data-testid="register-endpoint" onClick={() => setEditing(true)}>
              Register one
            </button>
          </IfMay>
        </p>
      )}
      {editing && (
        <EndpointForm need="partner_manager" endpoint={e} withClientId save={save} saved={saved} cancel={() => setEditing(false)} />
      )}
      {e && !editing && (
        <>
          <p data-testid="partner-endpoint">
            <code>{e.url}</code> <Badge value={e.status} /> {e.status_reason && <span class="muted">{e.status_reason}</span>}
          </p>
          <p class="muted">
            Client id <code>{e.client_id}</code> · verified {when(e.verified_at)} · receives {e.event_types.join(', ')}
          </p>
          <p>
            Signing secret: <Secret name="signing secret" value={e.secret} />
          </p>
          <div class="actions">
            <IfMay need="partner_manager">
              <button data-testid="change-partner-endpoint" onClick={() => setEditing(true)}>
                Change
              </button>
            </IfMay>
            <Action
              need="support"
              label="Verify"
              testId="verify-partner-endpoint"
              run={() => must(pbs.POST('/admin/v1/partners/{partner_id}/webhook/verify', { params: { path } }))}
              done={endpoint.reload}
            />
            <Action
              need="partner_manager"
              label="Remove"
              kind="danger"
              testId="remove-partner-endpoint"
              confirm="Remove this partner’s endpoint? Nothing more is delivered to it."
              run={() => must(pbs.DELETE('/admin/v1/partners/{partner_id}/webhook', { params: { path } }))}
              done={endpoint.reload}
            />
          </div>
        </>
      )}
    </Card>
  );
}
