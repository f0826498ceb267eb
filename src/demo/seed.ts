import fs from 'node:fs';
import path from 'node:path';
import type { BusinessService } from '../businesses/business-service.js';
import type { CredentialService } from '../partners/credential-service.js';
import type { PartnerService } from '../partners/partner-service.js';
import type { ReservationService } from '../reservations/reservation-service.js';
import { partnerInterfaces } from '../platform/auth/principal.js';
import type { Db } from '../platform/db/database.js';
import { SettingsStore } from '../platform/settings.js';
import { demoReservationSettings, generateDemoBusinesses, seededRandom } from './demo-dataset.js';

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

/**
 * Loads the demo dataset (60 restaurants in San Francisco and Toronto) and a demo partner with
 * every interface enabled and every demo business linked. Safe to run again: businesses are
 * upserted and the partner is created only once.
 */
/** What seeding needs: the services that load businesses, inventory, partners and credentials. */
export interface SeedServices {
  businesses: BusinessService;
  reservations: ReservationService;
  partners: PartnerService;
  credentials: CredentialService;
}

export async function seedDemo(db: Db, services: SeedServices): Promise<SeedResult> {
  const businesses = generateDemoBusinesses();
  await services.businesses.importJsonLines(businesses.map((b) => JSON.stringify(b)).join('\n'));
  const random = seededRandom(7);
  for (const b of businesses) {
    if (b.transactions.includes('restaurant_reservation')) await services.reservations.setSettings(b.id, demoReservationSettings(b, random));
  }
  const settings = new SettingsStore(db);
  const existing = await settings.get('demo_partner_id');
  if (existing) {
    await services.partners.importLinksCsv(existing, businesses.map((b) => `${b.id},demo`).join('\n'));
    return { businesses: businesses.length, partnerId: existing };
  }
  const partner = await services.partners.create({ name: 'Demo Partner', interfaces: [...partnerInterfaces] });
  await settings.set('demo_partner_id', partner.id);
  await services.partners.importLinksCsv(partner.id, businesses.map((b) => `${b.id},demo`).join('\n'));
  const key = await services.credentials.issue(partner.id, { kind: 'api_key', label: 'demo' });
  const basic = await services.credentials.issue(partner.id, { kind: 'basic', label: 'demo', username: 'demo-partner' });
  const oauth = await services.credentials.issue(partner.id, { kind: 'oauth_client', label: 'demo' });
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
  const current = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {};
  fs.writeFileSync(file, `${JSON.stringify({ ...current, ...values }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}
