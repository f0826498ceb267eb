import type { PageDef } from '../pages/shared';
import { PortalRequests } from './requests';
import { PortalErrors } from './errors';
import { PortalWebhooks } from './webhooks';
import { PortalFaults } from './faults';
import { PortalBusinesses } from './businesses';
import { PortalLeads } from './leads';
import { PortalKeys } from './keys';
import { PortalReadiness } from './readiness';

/** The partner portal's pages, in the order of its navigation (one file per page). */
export const portalPages: PageDef[] = [
  { id: 'requests', title: 'Requests', component: PortalRequests },
  { id: 'errors', title: 'Errors', component: PortalErrors },
  { id: 'webhooks', title: 'Webhooks', component: PortalWebhooks },
  { id: 'keys', title: 'Keys', component: PortalKeys },
  { id: 'faults', title: 'Faults', component: PortalFaults },
  { id: 'readiness', title: 'Readiness', component: PortalReadiness },
  { id: 'businesses', title: 'Businesses', component: PortalBusinesses },
  { id: 'leads', title: 'Leads', component: PortalLeads },
];
