import { useState } from 'preact/hooks';
import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Badge, Card, Page, Problem, Table, when } from '../ui';
import type { Params } from './shared';
import { BusinessPicker } from './business-picker';

/**
 * A business's leads and a lead's conversation (docs/contract/leads.md): the operator starts a
 * lead or speaks for the consumer, and each sends its webhook as the partner's integration sees it.
 */
export function Leads(props: Params) {
  const business = props.params.get('business') ?? undefined;
  const leadId = props.params.get('lead') ?? undefined;
  const [text, setText] = useState('');
  const leads = useQuery(business ? `leads:${business}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses/{business_id}/leads', { params: { path: { business_id: business! } } })),
  );
  const lead = useQuery(leadId ? `lead:${leadId}` : undefined, () =>
    must(pbs.GET('/admin/v1/leads/{lead_id}', { params: { path: { lead_id: leadId! } } })),
  );
  const reload = () => {
    leads.reload();
    lead.reload();
  };
  return (
    <Page title="Leads">
      <Card>
        <div class="form">
          <BusinessPicker value={business} onPick={(id) => go('leads', { business: id })} />
          {business && (
            <Action
              label="Start a lead"
              kind="primary"
              testId="start-lead"
              run={async () => {
                const started = await must(
                  pbs.POST('/admin/v1/businesses/{business_id}/events/leads', { params: { path: { business_id: business } }, body: {} }),
                );
                go('leads', { business, lead: started.lead_id });
              }}
            />
          )}
        </div>
        {!business && <p class="muted">Pick a business to see its leads.</p>}
        <Problem error={leads.error} />
        {business && (
          <Table
            testId="leads"
            rows={leads.data?.leads}
            empty="No lead yet."
            columns={[
              { title: 'Consumer', cell: (l) => <a href={`#/leads?business=${business}&lead=${l.id}`}>{l.user.display_name}</a> },
              { title: 'Asks for', cell: (l) => l.project.job_names.join(', ') },
              { title: 'Started', cell: (l) => when(l.time_created) },
              { title: 'Last event', cell: (l) => when(l.last_event_time) },
              { title: 'Phone', cell: (l) => l.phone_number ?? '—' },
            ]}
          />
        )}
      </Card>
      {leadId && (
        <Card title={lead.data ? `${lead.data.lead.user.display_name}: ${lead.data.lead.project.job_names.join(', ')}` : 'Lead'}>
          <Problem error={lead.error} />
          {lead.data && (
            <>
              <p class="muted">
                {lead.data.lead.project.additional_info ?? ''} · replied: <Badge value={lead.data.replied_as ?? 'no'} />
              </p>
              <Table
                testId="conversation"
                rows={lead.data.events}
                columns={[
                  { title: 'When', cell: (e) => when(e.time_created) },
                  { title: 'Who', cell: (e) => `${e.user_display_name} (${e.user_type}${e.channel ? `, ${e.channel}` : ''})` },
                  { title: 'Said', cell: (e) => <span class="pre">{e.event_content.text ?? e.event_content.fallback_text}</span> },
                  { title: 'Read', cell: (e) => (lead.data?.read_through_event_id === e.id ? 'read up to here' : '') },
                ]}
              />
              <div class="form">
                <label>
                  The consumer says
                  <input
                    name="consumer_text"
                    value={text}
                    maxLength={5000}
                    onInput={(e) => setText((e.target as HTMLInputElement).value)}
                  />
                </label>
                <Action
                  label="Send as the consumer"
                  testId="consumer-says"
                  run={() =>
                    must(
                      pbs.POST('/admin/v1/leads/{lead_id}/messages', {
                        params: { path: { lead_id: leadId } },
                        body: text.trim() === '' ? {} : { text: text.trim() },
                      }),
                    )
                  }
                  done={() => (setText(''), reload())}
                />
              </div>
            </>
          )}
        </Card>
      )}
    </Page>
  );
}
