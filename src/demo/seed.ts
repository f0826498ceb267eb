import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BusinessService } from '../businesses/business-service.js';
import type { CredentialService } from '../partners/credential-service.js';
import type { PartnerService } from '../partners/partner-service.js';
import type { ReservationServices } from '../reservations/module.js';
import type { ReviewService } from '../reviews/review-service.js';
import type { LeadService } from '../leads/lead-service.js';
import type { BusinessUserService } from '../owners/owner-service.js';
import type { AdvertisingServices } from '../advertising/module.js';
import type { EngagementService } from '../engagement/engagement-service.js';
import { ACTIVITY_FIELDS } from '../engagement/scoring.js';
import { addDays, mondayOf } from '../platform/local-time.js';
import { partnerInterfaces } from '../platform/auth/principal.js';
import type { Db } from '../platform/db/database.js';
import { SettingsStore } from '../platform/settings.js';
import { demoReservationSettings, generateDemoBusinesses, seededRandom } from './demo-dataset.js';
import { isRecord } from '../platform/values.js';

export interface DemoCredentials {
  partner_id: string;
  api_key: string;
  basic_username: string;
  basic_password: string;
  oauth_client_id: string;
  oauth_client_secret: string;
}

export interface SeedResult {
  businesses: number;
  /** Present only when this run created the demo partner (its secrets are shown once). */
  credentials?: DemoCredentials;
  partnerId: string;
}

/** A business user per ten demo businesses (a small group's owner); stable ids and addresses, so seeding again changes nothing. */
function demoOwners(businesses: Array<{ id: string }>): string[] {
  const lines: string[] = [];
  for (let group = 0; group * 10 < businesses.length; group++) {
    const first = FIRST_NAMES[group % FIRST_NAMES.length];
    const last = LAST_NAMES[(group * 3) % LAST_NAMES.length];
    const managed = businesses.slice(group * 10, group * 10 + 10).map((b) => b.id);
    lines.push(
      JSON.stringify({
        id: `demo-owner-${group + 1}`,
        name: `${first} ${last}`,
        email: `${first}.${last}@owners.example.com`.toLowerCase(),
        business_ids: managed,
      }),
    );
  }
  return lines;
}

/** The demo's leads: three requests for a quote, each with a conversation under way; made once (stable ids). */
const DEMO_LEADS = [
  {
    id: 'demo-lead-catering',
    details: 'A team lunch for 30 next Friday, some vegetarians.',
    follow: ['Could you send a menu with prices?'],
  },
  {
    id: 'demo-lead-birthday',
    details: 'A surprise birthday dinner, ideally a private room.',
    follow: ['Is a cake allowed if we bring it?'],
  },
  { id: 'demo-lead-rehearsal', details: 'Rehearsal dinner for 18 on a Saturday in June.', follow: [] },
];

/**
 * The businesses with demo leads advertise (a BP program bought by the demo partner): the Leads
 * API serves only businesses that are advertising (docs/contract/leads.md §12.1).
 */
async function demoAdvertisers(
  advertising: SeedServices['advertising'],
  partnerId: string,
  businesses: Array<{ id: string; transactions: string[] }>,
) {
  for (const business of leadBusinesses(businesses)) {
    if (await advertising.listings.advertisingNow(business.id)) continue;
    await advertising.operator.startProgram(partnerId, { business_id: business.id, program_name: 'BP' });
  }
}

/**
 * The businesses of the demo's leads: the dataset's last three restaurants taking reservations
 * (in Toronto, managed by `demo-owner-6`), away from the San Francisco ones the README's walk-through advertises with a
 * new-advertiser promotion.
 */
function leadBusinesses<T extends { transactions: string[] }>(businesses: T[]): T[] {
  // Restaurants taking reservations: asked for catering and private events.
  return businesses.filter((b) => b.transactions.includes('restaurant_reservation')).slice(-DEMO_LEADS.length);
}

async function demoLeads(leads: LeadService, businesses: Array<{ id: string; transactions: string[] }>): Promise<void> {
  for (const [i, demo] of DEMO_LEADS.entries()) {
    const business = leadBusinesses(businesses)[i];
    if (!business || (await leads.exists(demo.id))) continue;
    await leads.emit(business.id, { lead_id: demo.id, text: demo.details });
    for (const text of demo.follow) await leads.emit(business.id, { lead_id: demo.id, text });
  }
}

/**
 * Loads the demo dataset (60 restaurants in San Francisco and Toronto, with reviews, four scored
 * weeks of engagement, three leads with their conversations and a business user per ten
 * businesses) and a demo partner with every interface enabled and every demo business linked.
 * Safe to run again: businesses are upserted and the partner is created only once.
 */
/** What seeding needs: the services that load businesses, inventory, partners and credentials. */
export interface SeedServices {
  businesses: BusinessService;
  reservations: Pick<ReservationServices, 'operator'>;
  partners: PartnerService;
  credentials: CredentialService;
  reviews: ReviewService;
  engagement: EngagementService;
  leads: { conversations: LeadService };
  owners: { users: BusinessUserService };
  advertising: Pick<AdvertisingServices, 'operator' | 'listings'>;
}

const REVIEW_TEXTS: Record<number, string[]> = {
  5: [
    'Wonderful evening: the tasting menu was superb and the staff remembered our names.',
    'Best meal we have had this year. Book ahead for the window seats.',
  ],
  4: ['Lovely food and a warm room; the desserts are the highlight.', 'Great cocktails, friendly service, a little loud on weekends.'],
  3: ['Good, not great. The mains were generous but under-seasoned.', 'Fine for a quick dinner; the wait for a table was long.'],
  2: ['The soup arrived cold and we waited 40 minutes for the mains.'],
};
const FIRST_NAMES = ['Ava', 'Ben', 'Chloe', 'Diego', 'Emma', 'Farid', 'Grace', 'Hiro', 'Isla', 'Jonas'];
const LAST_NAMES = ['Anders', 'Brooks', 'Chen', 'Dubois', 'Evans', 'Fischer', 'Garcia', 'Hughes'];

/** Three reviews per demo business (one answered by the owner), dated over the last months; stable ids, so seeding again replaces them. */
function demoReviews(businesses: Array<{ id: string }>, now: number): string[] {
  const random = seededRandom(11);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  return businesses.flatMap((b, i) =>
    [0, 1, 2].map((n) => {
      const rating = [5, 4, 5, 3, 4, 2][(i + n * 2) % 6];
      const user = `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
      return JSON.stringify({
        business_id: b.id,
        id: `demo-${b.id}-${n}`,
        rating,
        text: pick(REVIEW_TEXTS[rating]),
        user: { name: user },
        time_created: new Date(now - (n * 20 + Math.floor(random() * 15) + 1) * 86_400_000).toISOString(),
        ...(n === 0
          ? {
              public_response: {
                text: `Thank you, ${user.split(' ')[0]}! We hope to see you again soon.`,
                business_user: { name: 'The owner', role: 'OWNER' },
              },
            }
          : {}),
      });
    }),
  );
}

/** Activity of the four weeks before this one for every demo business, then scored. */
async function demoEngagement(engagement: EngagementService, businesses: Array<{ id: string }>, now: number): Promise<void> {
  const random = seededRandom(13);
  const thisWeek = mondayOf(new Date(now).toISOString().slice(0, 10));
  const weeks = [4, 3, 2, 1].map((k) => addDays(thisWeek, -7 * k));
  const lines = weeks.flatMap((week) =>
    businesses.map((b, i) => {
      const scale = 0.2 + ((i * 7) % 10) / 10 + random() * 0.3;
      const activity: Record<string, unknown> = { business_id: b.id, week };
      for (const field of ACTIVITY_FIELDS) activity[field] = Math.round((field === 'page_views' ? 800 : 30) * scale * random());
      return JSON.stringify(activity);
    }),
  );
  await engagement.importJsonLines(lines.join('\n'));
  for (const week of weeks) await engagement.scoreWeek(week);
}

const SEED_CLAIM = 'demo_seed_claim';
/** A claim older than this was left by a process that died while seeding: another may seed. */
const SEED_CLAIM_MS = 10 * 60_000;

/**
 * Several processes started at once on an empty database (API and worker processes of a split
 * deployment) would each seed it: the first to claim seeds, the others start without. The claim
 * is released after seeding (`releaseDemoSeed`), so an emptied database is seeded again at the
 * next start, as before.
 */
export async function claimDemoSeed(db: Db, now = Date.now()): Promise<boolean> {
  const settings = new SettingsStore(db);
  const mine = `${now}:${randomUUID()}`;
  const held = await settings.setIfAbsent(SEED_CLAIM, mine);
  if (held === mine) return true;
  if (now - Number(held.split(':')[0]) < SEED_CLAIM_MS) return false;
  await settings.set(SEED_CLAIM, mine);
  return true;
}

export async function releaseDemoSeed(db: Db): Promise<void> {
  await new SettingsStore(db).delete(SEED_CLAIM);
}

export async function seedDemo(db: Db, services: SeedServices): Promise<SeedResult> {
  const businesses = generateDemoBusinesses();
  await services.businesses.importJsonLines(businesses.map((b) => JSON.stringify(b)).join('\n'));
  const random = seededRandom(7);
  for (const b of businesses) {
    if (b.transactions.includes('restaurant_reservation'))
      await services.reservations.operator.setSettings(b.id, demoReservationSettings(b, random));
  }
  const now = Date.now();
  await services.reviews.importJsonLines(demoReviews(businesses, now).join('\n'), { notify: false });
  await demoEngagement(services.engagement, businesses, now);
  await demoLeads(services.leads.conversations, businesses);
  await services.owners.users.importJsonLines(demoOwners(businesses).join('\n'));
  const settings = new SettingsStore(db);
  const existing = await settings.get('demo_partner_id');
  if (existing) {
    await services.partners.importLinksCsv(existing, businesses.map((b) => `${b.id},demo`).join('\n'));
    await demoAdvertisers(services.advertising, existing, businesses);
    return { businesses: businesses.length, partnerId: existing };
  }
  const partner = await services.partners.create({ name: 'Demo Partner', interfaces: [...partnerInterfaces] });
  await settings.set('demo_partner_id', partner.id);
  await services.partners.importLinksCsv(partner.id, businesses.map((b) => `${b.id},demo`).join('\n'));
  await demoAdvertisers(services.advertising, partner.id, businesses);
  // A demo partner needs no approval for launch, also where an operator seeds a production server.
  const key = await services.credentials.issue(partner.id, { kind: 'api_key', label: 'demo', override_readiness: true });
  const basic = await services.credentials.issue(partner.id, {
    kind: 'basic',
    label: 'demo',
    override_readiness: true,
    username: 'demo-partner',
  });
  const oauth = await services.credentials.issue(partner.id, { kind: 'oauth_client', label: 'demo', override_readiness: true });
  return {
    businesses: businesses.length,
    partnerId: partner.id,
    credentials: {
      partner_id: partner.id,
      api_key: key.api_key!,
      basic_username: basic.username!,
      basic_password: basic.password!,
      oauth_client_id: oauth.client_id!,
      oauth_client_secret: oauth.client_secret!,
    },
  };
}

/**
 * Where the sandbox keeps a database's demo secrets: `demo-credentials.json` for the embedded
 * SQLite database, a file of its own for each PostgreSQL database (a PostgreSQL start must not
 * overwrite the SQLite run's secrets).
 */
export function demoCredentialsFile(dataDir: string, databaseUrl: string | undefined): string {
  if (!databaseUrl) return path.join(dataDir, 'demo-credentials.json');
  const url = new URL(databaseUrl);
  const where = `${url.hostname}-${url.port || '5432'}${url.pathname.replace(/\//g, '-')}${url.searchParams.get('options') ?? ''}`;
  return path.join(dataDir, `demo-credentials.postgres-${where.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/_+$/, '')}.json`);
}

/** In sandbox mode the demo secrets are also kept in the data directory (mode 0600) so they can be found again. */
export function writeDemoCredentials(file: string, values: Record<string, string>): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const stored: unknown = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const current = isRecord(stored) ? stored : {};
  fs.writeFileSync(file, `${JSON.stringify({ ...current, ...values }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}
