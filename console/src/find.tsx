import { must, pbs } from './client';
import { Combobox } from './combobox';
import './find.css';

const KINDS: Record<string, string> = {
  partner: 'Partner',
  business: 'Business',
  reservation: 'Reservation',
  request: 'Request',
  message: 'Webhook message',
  lead: 'Lead',
};

/**
 * "Find anything" (GET /admin/v1/find): a partner, business, reservation, request id, webhook
 * message id or lead typed on any page; picking one opens the page that shows it.
 */
export function FindAnything() {
  return (
    <div class="find" data-testid="find">
      <Combobox
        label="Find anything"
        name="find"
        value={undefined}
        named={undefined}
        placeholder="a name, an id, a request id…"
        suggestKey={(typed) => `find:${typed}`}
        suggest={async (typed) =>
          typed === ''
            ? []
            : (await must(pbs.GET('/admin/v1/find', { params: { query: { q: typed.slice(0, 200) } } }))).results.map((r) => ({
                id: r.page,
                name: r.title,
                show: (
                  <>
                    <span class="muted">{KINDS[r.kind] ?? r.kind}</span> <span>{r.title}</span> <span class="muted">{r.detail}</span>{' '}
                    <code>{r.id}</code>
                  </>
                ),
              }))
        }
        nothingFound={(typed) => (typed ? `Nothing is “${typed}”.` : 'Type a name or an id.')}
        // A suggestion is a page to open; text that matched none (Enter on it) opens nothing.
        onPick={(page) => {
          if (/^[a-z-]+\?/.test(page)) window.location.hash = `#/${page}`;
        }}
      />
    </div>
  );
}
