import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Card, Page, Problem, Table, when } from '../ui';
import { Conversation } from '../conversation';
import type { Params } from './shared';
import { BusinessPicker } from './business-picker';

/**
 * A business's leads and a lead's conversation (docs/contract/leads.md): the operator starts a
 * lead or speaks for the consumer, and each sends its webhook as the partner's integration sees it.
 */
export function Leads(props: Params) {
  const leadId = props.params.get('lead') ?? undefined;
  const lead = useQuery(leadId ? `lead:${leadId}` : undefined, () =>
    must(pbs.GET('/admin/v1/leads/{lead_id}', { params: { path: { lead_id: leadId! } } })),
  );
  // A link to a lead alone (from the request log) shows its business's leads too.
  const business = props.params.get('business') ?? lead.data?.lead.business_id ?? '';
  const leads = useQuery(business ? `leads:${business}` : undefined, () =>
    must(pbs.GET('/admin/v1/businesses/{business_id}/leads', { params: { path: { business_id: business! } } })),
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
              need="support"
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
            <Conversation
              need="support"
              deliveriesHref={(id) => `#/webhooks?message_id=${encodeURIComponent(id)}`}
              view={lead.data}
              sayLabel="The consumer says"

              say={(text) =>
                must(
                  pbs.POST('/admin/v1/leads/{lead_id}/messages', {
                    params: { path: { lead_id: leadId } },
                    body: text === undefined ? {} : { text },
                  }),
                )
              }
              done={reload}
            />
          )}
        </Card>
      )}
    </Page>
  );
}
