import { must, pbs } from '../client';
import { go, useQuery } from '../hooks';
import { Action, Card, Page, Problem, Table, when } from '../ui';
import { Conversation } from '../conversation';
import type { Params } from '../pages/shared';
import { YourBusiness } from './business-choice';

/**
 * Your businesses' leads and their conversations as the Leads API reads them; in the sandbox,
 * start a lead or speak for the consumer to try your integration against the webhooks they send.
 */
export function PortalLeads(props: Params) {
  const leadId = props.params.get('lead') ?? undefined;
  const lead = useQuery(leadId ? `portal-lead:${leadId}` : undefined, () =>
    must(pbs.GET('/portal/v1/leads/{lead_id}', { params: { path: { lead_id: leadId! } } })),
  );
  // A link to a lead alone (from the request log) shows its business's leads too.
  const business = props.params.get('business') ?? lead.data?.lead.business_id ?? '';
  const leads = useQuery(business ? `portal-leads:${business}` : undefined, () =>
    must(pbs.GET('/portal/v1/leads', { params: { query: { business_id: business } } })),
  );
  return (
    <Page title="Leads">
      <Card>
        <div class="form">
          <YourBusiness value={business} label="business" onPick={(id) => go('leads', { business: id || undefined })} />
          {business && (
            <Action
              need="partner"
              label="Start a lead (sandbox)"
              kind="primary"
              testId="start-lead"
              run={async () => {
                const started = await must(pbs.POST('/portal/v1/leads', { body: { business_id: business } }));
                go('leads', { business, lead: started.lead_id });
              }}
            />
          )}
        </div>
        {!business && <p class="muted">Pick one of your businesses to see its leads.</p>}
        <Problem error={leads.error} />
        {business && (
          <Table
            testId="leads"
            rows={leads.data?.leads}
            empty="No lead yet."
            columns={[
              { title: 'Consumer', cell: (l) => <a href={`#/leads?business=${business}&lead=${l.id}`}>{l.user.display_name}</a> },
              { title: 'Asks for', cell: (l) => l.project.job_names.join(', ') },
              { title: 'Lead id', cell: (l) => <code>{l.id}</code> },
              { title: 'Last event', cell: (l) => when(l.last_event_time) },
            ]}
          />
        )}
      </Card>
      {leadId && (
        <Card title="Conversation">
          <Problem error={lead.error} />
          {lead.data && (
            <Conversation
              need="partner"
              deliveriesHref={(id) => `#/webhooks?message_id=${encodeURIComponent(id)}`}
              view={lead.data}
              sayLabel="The consumer says (sandbox)"
              showIds
              say={(text) =>
                must(
                  pbs.POST('/portal/v1/leads/{lead_id}/messages', {
                    params: { path: { lead_id: leadId } },
                    body: text === undefined ? {} : { text },
                  }),
                )
              }
              done={() => (lead.reload(), leads.reload())}
            />
          )}
        </Card>
      )}
    </Page>
  );
}
