import type { PageDef } from './pages/shared';
import { Overview } from './pages/overview';
import { Partners } from './pages/partners';
import { Businesses } from './pages/businesses';
import { Reservations } from './pages/reservations';
import { Advertising } from './pages/advertising';
import { Waitlist } from './pages/waitlist';
import { Reviews } from './pages/reviews';
import { Leads } from './pages/leads';
import { BusinessUsers } from './pages/business-users';
import { Engagement } from './pages/engagement';
import { Webhooks } from './pages/webhooks';
import { Tasks } from './pages/tasks';
import { Clock } from './pages/clock';
import { Imports } from './pages/imports';
import { Requests } from './pages/requests';
import { Team } from './pages/team';
import { Audit } from './pages/audit';

/** The console's pages, in the order of its navigation (one file per page in pages/). */
export const pages: PageDef[] = [
  { id: 'overview', title: 'Overview', component: Overview },
  { id: 'partners', title: 'Partners', component: Partners },
  { id: 'businesses', title: 'Businesses', component: Businesses },
  { id: 'business-users', title: 'Business users', component: BusinessUsers },
  { id: 'reservations', title: 'Reservations', component: Reservations },
  { id: 'advertising', title: 'Advertising', component: Advertising },
  { id: 'waitlist', title: 'Waitlist', component: Waitlist },
  { id: 'reviews', title: 'Reviews', component: Reviews },
  { id: 'leads', title: 'Leads', component: Leads },
  { id: 'engagement', title: 'Engagement', component: Engagement },
  { id: 'webhooks', title: 'Webhooks', component: Webhooks },
  { id: 'requests', title: 'Requests', component: Requests },
  { id: 'tasks', title: 'Tasks', component: Tasks },
  { id: 'clock', title: 'Clock', component: Clock },
  { id: 'imports', title: 'Imports', component: Imports, need: 'admin' },
  { id: 'team', title: 'Team', component: Team },
  { id: 'audit', title: 'Audit trail', component: Audit },
];
