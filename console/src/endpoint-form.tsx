import type { Need } from './operator';
import { useState } from 'preact/hooks';
import type { paths } from '../../packages/sdk/src/schema';
import { Action } from './ui';

/** A webhook endpoint as registered or changed: by the operator for a partner, or by the partner in its portal. */
export type EndpointBody = NonNullable<paths['/portal/v1/webhooks/endpoint']['put']['requestBody']>['content']['application/json'];
type EventType = NonNullable<EndpointBody['event_types']>[number];

/**
 * Every update type pbs sends, with what it is about (a Record, so the compiler says when one is
 * missing); the spec's own are on for a new endpoint, the sandbox's extensions (reservations,
 * advertising, waitlist) when asked for.
 */
const EVENT_TYPES: Record<EventType, { about: string; byDefault: boolean }> = {
  NEW_REVIEW_EVENT: { about: 'a new review', byDefault: true },
  REVIEW_EDITED_EVENT: { about: 'a review edited', byDefault: true },
  REVIEW_REMOVED_EVENT: { about: 'a review removed', byDefault: true },
  NEW_EVENT: { about: 'a lead’s new message or event', byDefault: true },
  CONSUMER_PHONE_NUMBER_OPT_IN_EVENT: { about: 'a consumer shares their phone number', byDefault: true },
  CONSUMER_PHONE_NUMBER_OPT_OUT_EVENT: { about: 'a consumer withdraws it', byDefault: true },
  VERIFIED_LICENSE_UPDATE_EVENT: { about: 'a license verification result', byDefault: true },
  DATA_INGESTION_JOB_UPDATE_EVENT: { about: 'a data ingestion job’s result', byDefault: true },
  RESERVATION_CREATED_EVENT: { about: 'a reservation made', byDefault: false },
  RESERVATION_CANCELED_BY_GUEST_EVENT: { about: 'a reservation canceled by the guest', byDefault: false },
  RESERVATION_CANCELED_BY_RESTAURANT_EVENT: { about: 'a reservation canceled by the restaurant', byDefault: false },
  ADVERTISING_JOB_COMPLETED_EVENT: { about: 'an advertising job done', byDefault: false },
  ADVERTISING_PROGRAM_UPDATED_EVENT: { about: 'an advertising program changed', byDefault: false },
  WAITLIST_VISIT_UPDATED_EVENT: { about: 'a waitlist visit changed', byDefault: false },
};
const ALL_EVENT_TYPES = Object.keys(EVENT_TYPES).filter((t): t is EventType => t in EVENT_TYPES);

/**
 * Registers or changes an endpoint: its URL and the updates it receives (pbs verifies a new URL
 * before using it). `save` sends it where the page's API takes it.
 */
export function EndpointForm(props: {
  /** Who may use its button (the console's role, or the portal's partner). */
  need: Need;
  endpoint?: { url: string; event_types: string[]; client_id: string };
  save: (body: EndpointBody) => Promise<unknown>;
  /** The operator also says the partner's client id at the platform (the portal keeps it). */
  withClientId?: boolean;
  saved: () => void;
  cancel?: () => void;
}) {
  const current = props.endpoint;
  const [url, setUrl] = useState(current?.url ?? '');
  const [clientId, setClientId] = useState(current?.client_id ?? '');
  const [types, setTypes] = useState<EventType[]>(
    current ? ALL_EVENT_TYPES.filter((t) => current.event_types.includes(t)) : ALL_EVENT_TYPES.filter((t) => EVENT_TYPES[t].byDefault),
  );
  const toggle = (type: EventType, on: boolean) => setTypes(on ? [...types, type] : types.filter((t) => t !== type));
  return (
    <form class="form endpoint-form" onSubmit={(e) => e.preventDefault()} data-testid="endpoint-form">
      <label>
        URL
        <input
          name="url"
          type="url"
          required
          placeholder="https://example.com/pbs-webhooks"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      {props.withClientId && (
        <label>
          client id
          <input name="client_id" value={clientId} maxLength={200} onInput={(e) => setClientId((e.target as HTMLInputElement).value)} />
        </label>
      )}
      <fieldset>
        <legend>Updates it receives</legend>
        {ALL_EVENT_TYPES.map((t) => (
          <label class="check">
            <input
              type="checkbox"
              name={t}
              checked={types.includes(t)}
              onChange={(e) => toggle(t, (e.target as HTMLInputElement).checked)}
            />{' '}
            <code>{t}</code> <span class="muted">{EVENT_TYPES[t].about}</span>
          </label>
        ))}
      </fieldset>
      <div class="actions">
        <Action
          need={props.need}
          label={current ? 'Save' : 'Register'}
          kind="primary"
          testId="save-endpoint"
          run={() => props.save({ url, event_types: types, ...(props.withClientId && clientId ? { client_id: clientId } : {}) })}
          done={props.saved}
        />
        {props.cancel && <button onClick={props.cancel}>Cancel</button>}
      </div>
    </form>
  );
}
