import type { Need } from './operator';
import { useState } from 'preact/hooks';
import type { Answer } from './client';
import { Action, Badge, Table, when } from './ui';

/** A lead with its newest events, as the operator's and the portal's lead routes answer it. */
export type LeadView = Answer<'/admin/v1/leads/{lead_id}', 'get'>;

/**
 * A lead's conversation (console and portal alike): its events oldest first, and a line to speak
 * for the consumer; `say` sends it (an empty text: a realistic one), `done` reloads.
 */
export function Conversation(props: {
  /** Who may use its button (the console's role, or the portal's partner). */
  need: Need;
  view: LeadView;
  say: (text: string | undefined) => Promise<unknown>;
  done: () => void;
  sayLabel: string;
  /** Shows each event's id, the `event_id` of the webhook that announced it. */
  showIds?: boolean;
  /** Where the deliveries of the webhook message that announced an event are shown. */
  deliveriesHref: (messageId: string) => string;
}) {
  const [text, setText] = useState('');
  const { view } = props;
  return (
    <>
      <p class="muted">
        {view.lead.project.additional_info ?? ''} · replied: <Badge value={view.replied_as ?? 'no'} />
      </p>
      <Table
        testId="conversation"
        rows={view.events}
        columns={[
          { title: 'When', cell: (e) => when(e.time_created) },
          { title: 'Who', cell: (e) => `${e.user_display_name} (${e.user_type}${e.channel ? `, ${e.channel}` : ''})` },
          { title: 'Said', cell: (e) => <span class="pre">{e.event_content.text ?? e.event_content.fallback_text}</span> },
          props.showIds
            ? { title: 'Event id (webhook event_id)', cell: (e) => <code>{e.id}</code> }
            : { title: 'Read', cell: (e) => (view.read_through_event_id === e.id ? 'read up to here' : '') },
          {
            title: 'Webhook',
            cell: (e) =>
              e.message_id ? (
                <a href={props.deliveriesHref(e.message_id)} data-testid="event-deliveries">
                  deliveries
                </a>
              ) : (
                ''
              ),
          },
        ]}
      />
      <div class="form">
        <label>
          {props.sayLabel}
          <input name="consumer_text" value={text} maxLength={5000} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        </label>
        <Action
          need={props.need}
          label="Send as the consumer"
          testId="consumer-says"
          run={() => props.say(text.trim() === '' ? undefined : text.trim())}
          done={() => (setText(''), props.done())}
        />
      </div>
    </>
  );
}
