import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createPbsClient, PbsError, type PbsClient } from '@pbs/sdk';
import { expect } from 'vitest';
import { sql } from 'kysely';
import { createPbs, type Pbs, type PbsOptions } from '../../src/app.js';
import { ControllableClock } from '../../src/platform/clock.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { openDatabase, type Database, type Dialect } from '../../src/platform/db/database.js';

export const dialects: Dialect[] = ['sqlite', 'postgres'];

export const TEST_PG_URL = process.env.PBS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const ADMIN_TOKEN = 'test-admin-token';
/** A fixed start for the sandbox clock: Monday 2031-05-05 16:00 UTC. */
export const T0 = Date.parse('2031-05-05T16:00:00Z');

export interface TestDatabase extends Database {
  /** Drops what the test created (the PostgreSQL schema) and closes. */
  drop(): Promise<void>;
}

/** A fresh, empty database: SQLite in memory, or a PostgreSQL schema of its own. */
export async function openTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const db = await openDatabase({});
    return { ...db, drop: () => db.close() };
  }
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const db = await openDatabase({ databaseUrl: TEST_PG_URL, pgSchema: schema, pgPoolSize: 20 });
  return {
    ...db,
    drop: async () => {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.db);
      await db.close();
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    PBS_SANDBOX: '1',
    PBS_LOG_LEVEL: process.env.PBS_TEST_LOG_LEVEL ?? 'silent',
    PBS_ADMIN_TOKEN: ADMIN_TOKEN,
    PBS_TASKS: '0',
    PBS_CLOCK_SYNC_MS: '0',
    PBS_AUTH_CACHE_MS: '0',
    // Each pbs of a test writes its request log on its own thread: starting one (through tsx, from
    // the sources) costs a few hundred ms, so tests that are not about it write on the main thread.
    PBS_REQUEST_LOG_WRITER: 'inline',
    // Tests send many requests from one address on a wall clock that stands still; the limits on
    // client addresses have tests of their own that set them low.
    PBS_PUBLIC_RATE_LIMIT_PER_SECOND: '1000000',
    PBS_PORTAL_RATE_LIMIT_PER_SECOND: '1000000',
    PBS_AUTH_FAILURES_PER_MINUTE: '1000000',
    PBS_SEED_DEMO: '0',
    // Not the repository's ./data: where imports spool their bodies.
    PBS_DATA_DIR: path.join(os.tmpdir(), 'pbs-tests'),
    PORT: '0',
    HOST: '127.0.0.1',
    ...overrides,
  });
}

/** Stands in for the wall clock in per-second rate-limit windows. */
export class ManualWall {
  constructor(public ms = T0) {}
  now = () => this.ms;
  tick(ms = 1000) {
    this.ms += ms;
  }
}

export interface Harness {
  pbs: Pbs;
  wall: ManualWall;
  url: string;
  clock: ControllableClock;
  database: TestDatabase;
  close(): Promise<void>;
}

/** Starts a real pbs on a loopback port over a fresh database. */
export async function startPbs(
  dialect: Dialect,
  options: {
    env?: Record<string, string>;
    modules?: PbsOptions['modules'];
    database?: TestDatabase;
    clock?: ControllableClock;
    logStream?: PbsOptions['logStream'];
  } = {},
): Promise<Harness> {
  const database = options.database ?? (await openTestDatabase(dialect));
  const clock = options.clock ?? new ControllableClock({ frozenAtMs: T0 });
  const wall = new ManualWall();
  const pbs = await createPbs(testConfig(options.env), {
    database,
    clock,
    modules: options.modules,
    keepDatabaseOpen: true,
    wallClock: wall.now,
    logStream: options.logStream,
  });
  const address = await pbs.listen();
  return {
    pbs,
    wall,
    url: address,
    clock,
    database,
    async close() {
      await pbs.close();
      if (!options.database) await database.drop();
    },
  };
}

export interface CallOptions {
  token?: string;
  basic?: [string, string];
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.basic) headers.authorization = `Basic ${Buffer.from(options.basic.join(':')).toString('base64')}`;
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (options.contentType) headers['content-type'] = options.contentType;
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Calls the operator API with the test admin token. */
export function admin(base: string, method: string, path: string, options: CallOptions = {}) {
  return call(base, method, path, { token: ADMIN_TOKEN, ...options });
}

/** Creates a partner with the given interfaces and returns it with one credential of each kind. */
export async function createPartner(base: string, interfaces: string[], name = 'Test Partner') {
  const partner = (await admin(base, 'POST', '/admin/v1/partners', { json: { name, interfaces } })).body;
  const issue = async (kind: string) =>
    (await admin(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, { json: { kind } })).body;
  const apiKey = await issue('api_key');
  const basic = await issue('basic');
  const oauth = await issue('oauth_client');
  return { partner, apiKey, basic, oauth };
}

/** Checks an answer's status and its error code (`{"error": {"code"}}`), with the body in the message. */
export function expectCode(r: { status: number; body: any; text: string }, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.body?.error?.code, r.text).toBe(code);
}

export type TestPartner = Awaited<ReturnType<typeof createPartner>>;

/**
 * The typed SDK client that a partner's own code would use, for tests that act as a partner:
 * every path, parameter and body is checked against pbs's OpenAPI document when the tests are
 * type-checked. It neither retries nor adds Idempotency-Keys, so each call is one request, as
 * with `call`. Refusals of shapes no typed client can send (a missing field, a wrong type) are
 * tested through `call`.
 */
export function partnerClient(base: string, p: TestPartner, auth: 'apiKey' | 'basic' | 'oauth' = 'apiKey'): PbsClient {
  return createPbsClient({
    baseUrl: base,
    maxRetries: 0,
    idempotencyKeys: false,
    auth:
      auth === 'apiKey'
        ? { apiKey: p.apiKey.api_key }
        : auth === 'basic'
          ? { basic: { username: p.basic.username, password: p.basic.password } }
          : { oauth: { clientId: p.oauth.client_id, clientSecret: p.oauth.client_secret } },
  });
}

/**
 * An SDK call answered in the shape `call` gives: the status and the typed body; when pbs
 * refused it, `error` and, for helpers written for `call`, the error's body as `body`.
 */
export async function answered<T>(
  request: Promise<{ data?: T; response: Response }>,
): Promise<{ status: number; headers: Headers; body: T; error?: { code: string; description: string }; text: string }> {
  try {
    const { data, response } = await request;
    return { status: response.status, headers: response.headers, body: data as T, text: JSON.stringify(data) };
  } catch (error) {
    if (!(error instanceof PbsError)) throw error;
    const body = { error: { code: error.code, description: error.description, field: error.field } };
    // The SDK's error keeps no headers; tests of a refusal's headers use `call`.
    return { status: error.status, headers: new Headers(), body: body as T, error: body.error, text: JSON.stringify(body) };
  }
}

/** An access token for the partner's OAuth client (the token flow of private reviews and engagement). */
export async function accessToken(base: string, p: { oauth: { client_id: string; client_secret: string } }): Promise<string> {
  const form = { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: p.oauth.client_secret };
  return (await call(base, 'POST', '/oauth2/token', { form })).body.access_token as string;
}

/** A loopback redirect URI: a sandbox partner may use one without registering it (docs/owners.md). */
export const APP_REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * A business user's access token for the partner's OAuth client, as its app gets one: the
 * sandbox's consent page answered with Allow for `userId`, then the code redeemed (no PKCE).
 */
export async function businessUserToken(base: string, p: TestPartner, userId: string, scope = 'leads'): Promise<string> {
  const request = { client_id: p.oauth.client_id, redirect_uri: APP_REDIRECT, response_type: 'code', scope };
  const consented = await fetch(`${base}/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ ...request, user_id: userId, decision: 'approve' }).toString(),
  });
  const code = new URL(consented.headers.get('location') ?? 'http://invalid/').searchParams.get('code');
  if (!code) throw new Error(`no code: ${consented.status} ${await consented.text()}`);
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: APP_REDIRECT,
    client_id: p.oauth.client_id,
    client_secret: p.oauth.client_secret,
  };
  const issued = await call(base, 'POST', '/oauth2/token', { form });
  if (issued.status !== 200) throw new Error(`no token: ${issued.text}`);
  return issued.body.access_token as string;
}

/**
 * The shared fixture of partner tests: a business made by the operator (`sampleBusiness` with
 * `overrides`) and linked to each of `partnerIds`. Answers the created record.
 */
export async function linkedBusiness(base: string, partnerIds: string[], overrides: Record<string, unknown> = {}) {
  const created = await admin(base, 'POST', '/admin/v1/businesses', { json: sampleBusiness(overrides) });
  if (created.status !== 201) throw new Error(`creating a business answered ${created.status}: ${created.text}`);
  for (const partnerId of partnerIds) await admin(base, 'PUT', `/admin/v1/partners/${partnerId}/businesses/${created.body.id}`);
  return created.body as { id: string; alias: string };
}

/**
 * Signs in with a portal link as a browser does: opens it (a page with a button; nothing is spent
 * yet), then posts that page's form. Answers the form's answer (303 with the session cookie when
 * the link was good).
 */
export async function spendPortalLink(h: Harness, link: string): Promise<Response> {
  const url = new URL(link.replace(h.pbs.ctx.config.publicUrl, h.url));
  const accept = 'text/html,application/xhtml+xml';
  const page = await fetch(url, { redirect: 'manual', headers: { accept } });
  if (page.status !== 200) return page;
  const token = /name="token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return fetch(`${h.url}/portal/sign-in/link`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url, accept },
    body: new URLSearchParams({ token }).toString(),
  });
}

/** A partner portal session through a fresh portal link, as a browser signs in: the `cookie` and `origin` headers to send. */
export async function portalSession(h: Harness, partnerId: string): Promise<{ cookie: string; origin: string }> {
  const link = (await admin(h.url, 'POST', `/admin/v1/partners/${partnerId}/portal-links`)).body.url as string;
  const signedIn = await spendPortalLink(h, link);
  const cookie = signedIn.headers.get('set-cookie');
  if (!cookie) throw new Error(`the portal link did not sign in: ${signedIn.status}`);
  return { cookie: cookie.split(';')[0], origin: h.url };
}

/**
 * A pbs with roomy rate limits and one partner of the OAuth interfaces (private reviews,
 * engagement), with an access token already fetched: what the token-flow families' tests share.
 */
export async function startWithOAuthPartner(dialect: Dialect, iface: string, name: string) {
  const h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '1000' } });
  const p = await createPartner(h.url, [iface], name);
  return { h, p, token: await accessToken(h.url, p) };
}

export function sampleBusiness(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Sample Bistro',
    location: { address1: '1 Sample St', city: 'San Francisco', state: 'CA', country: 'US', zip_code: '94103' },
    coordinates: { latitude: 37.77, longitude: -122.42 },
    timezone: 'America/Los_Angeles',
    categories: [{ alias: 'french', title: 'French' }],
    rating: 4.5,
    review_count: 10,
    price: '$$',
    phone: '+14155550100',
    ...overrides,
  };
}

/**
 * A PostgreSQL schema of its own for pbs processes started by a test: DATABASE_URL selects it
 * through the connection's search_path. `drop()` removes it.
 */
export async function postgresSchemaForProcesses(prefix: string) {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase({ databaseUrl: TEST_PG_URL, pgSchema: schema });
  const url = new URL(TEST_PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    /** A connection to the same schema, for assertions on what the processes wrote. */
    database,
    async drop() {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
      await database.close();
    },
  };
}
