import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, postgresSchemaForProcesses, sampleBusiness } from '../support/harness.js';
import { runCli, startServerProcess, stopStrayServers } from '../support/process.js';

interface Target {
  name: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-proc-'));
  return { name: 'sqlite', env: { PBS_DATA_DIR: dir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function postgresTarget(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-proc-'));
  const pg = await postgresSchemaForProcesses('p');
  return {
    name: 'postgres',
    env: { PBS_DATA_DIR: dir, DATABASE_URL: pg.databaseUrl },
    cleanup: async () => {
      await pg.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each([
  ['sqlite', sqliteTarget],
  ['postgres', postgresTarget],
] as const)('pbs as a process on %s', (_name, makeTarget) => {
  let target: Target;
  beforeAll(async () => {
    target = await makeTarget();
  });
  afterAll(async () => {
    await stopStrayServers();
    await target.cleanup();
  });

  it('starts with migrations and the demo dataset, prints credentials, and stops cleanly on SIGTERM', async () => {
    const server = await startServerProcess(target.env);
    const banner = server.output();
    const adminToken = /admin token \(shown once\): (\S+)/.exec(banner)?.[1];
    const apiKey = /API key:\s+(\S+)/.exec(banner)?.[1];
    expect(adminToken).toBeTruthy();
    expect(apiKey).toBeTruthy();
    expect(banner).toContain('/docs');

    expect((await call(server.url, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    const businesses = await call(server.url, 'GET', '/admin/v1/businesses?limit=100', { token: adminToken });
    expect(businesses.body.total).toBeGreaterThanOrEqual(50);
    const cities = new Set(businesses.body.businesses.map((b: { location: { city: string } }) => b.location.city));
    expect([...cities].sort()).toEqual(['San Francisco', 'Toronto']);
    for (const b of businesses.body.businesses) {
      expect(b.categories.length).toBeGreaterThan(0);
      expect(b.coordinates.latitude).toEqual(expect.any(Number));
      expect(b.hours[0].open.length).toBeGreaterThan(0);
      expect(b.price).toMatch(/^\$+$/);
      expect(b.rating).toBeGreaterThan(0);
    }
    const restaurants = await call(server.url, 'GET', '/v3/partner/restaurants?limit=200', { token: apiKey });
    expect(restaurants.body.total).toBe(businesses.body.total);
    // Leads with conversations under way: a restaurant is asked for catering or a private event.
    const lead = await call(server.url, 'GET', '/admin/v1/leads/demo-lead-catering', { token: adminToken });
    expect(lead.status).toBe(200);
    expect(['Catering', 'Private event', 'Large group booking']).toContain(lead.body.lead.project.job_names[0]);
    expect(lead.body.events.map((e: { event_content: { text: string } }) => e.event_content.text)).toEqual([
      expect.stringMatching(/Additional details: A team lunch for 30/),
      'Could you send a menu with prices?',
    ]);
    // Each group of ten demo businesses has its owner, a business user.
    const owners = await call(server.url, 'GET', '/admin/v1/business-users', { token: adminToken });
    expect(owners.body.total).toBe(Math.ceil(businesses.body.total / 10));
    expect(owners.body.business_users[0]).toMatchObject({ email: expect.stringMatching(/@owners\.example\.com$/) });
    expect(owners.body.business_users.flatMap((u: { business_ids: string[] }) => u.business_ids)).toHaveLength(businesses.body.total);

    const file = /also saved in (\S+)\)/.exec(banner)![1];
    expect(path.dirname(file)).toBe(target.env.PBS_DATA_DIR);
    expect(path.basename(file)).toEqual(
      target.name === 'sqlite' ? 'demo-credentials.json' : expect.stringMatching(/^demo-credentials\.postgres-.+\.json$/),
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved.api_key).toBe(apiKey);
    expect(saved.admin_token).toBe(adminToken);

    // A token reset by the CLI works at once against the running server, and the old one stops.
    const reset = await runCli(['admin-token', 'reset'], target.env);
    expect(reset.code, reset.stderr).toBe(0);
    expect((await call(server.url, 'GET', '/admin/v1/partners', { token: reset.json.admin_token })).status).toBe(200);
    expect((await call(server.url, 'GET', '/admin/v1/partners', { token: adminToken })).status).toBe(401);
    expect(reset.json.saved_in).toBe(file);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ admin_token: reset.json.admin_token, api_key: apiKey });

    expect(await server.stop('SIGTERM')).toBe(0);

    // A second start keeps the data and prints no new secrets, but says where the first start kept them.
    const again = await startServerProcess(target.env);
    try {
      expect(again.output()).not.toContain('admin token (shown once)');
      const saved = /sandbox secrets \(operator token, demo partner\): (\S+)/.exec(again.output())?.[1];
      expect(saved && JSON.parse(fs.readFileSync(saved, 'utf8')).api_key).toBe(apiKey);
      expect((await call(again.url, 'GET', '/v3/partner/restaurants', { token: apiKey })).status).toBe(200);
    } finally {
      expect(await again.stop('SIGTERM')).toBe(0);
    }
  });

  it('manages partners, credentials, links and businesses from the CLI', async () => {
    const env = target.env;
    const created = await runCli(['partner', 'create', '--name', 'CLI Partner', '--interfaces', 'reservations,waitlist'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.interfaces.waitlist.enabled).toBe(true);
    expect(created.json.interfaces.advertising.enabled).toBe(false);
    const id = created.json.id;

    const key = await runCli(['partner', 'credential', 'issue', id, '--kind', 'api_key', '--label', 'cli'], env);
    expect(key.json.api_key).toMatch(/^pbs_/);
    const off = await runCli(['partner', 'interface', id, 'waitlist', 'off', '--per-second', '3'], env);
    expect(off.json.interfaces.waitlist).toEqual({ enabled: false, per_second: 3, per_day: null });

    const toronto = await runCli(['business', 'list', '--city', 'Toronto', '--limit', '100'], env);
    expect(toronto.json.total).toBe(30);
    const dir = env.PBS_DATA_DIR;
    const csv = path.join(dir, 'links.csv');
    fs.writeFileSync(csv, `business_id,comment\n${toronto.json.businesses[0].id},first\n${toronto.json.businesses[1].alias}\n`);
    const linked = await runCli(['partner', 'import-links', id, csv], env);
    expect(linked.json).toEqual({ linked: 2 });
    expect(linked.stderr).toContain('linked 2/2 businesses'); // progress, on stderr
    expect((await runCli(['partner', 'links', id], env)).json.total).toBe(2);

    const file = path.join(dir, 'biz.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ name: 'CLI Diner', location: { city: 'Toronto', state: 'ON', country: 'CA' }, timezone: 'America/Toronto' }),
    );
    const upserted = await runCli(['business', 'upsert', file], env);
    expect(upserted.json.alias).toBe('cli-diner-toronto');
    expect((await runCli(['business', 'show', 'cli-diner-toronto'], env)).json.id).toBe(upserted.json.id);

    const revoked = await runCli(['partner', 'credential', 'revoke', key.json.id], env);
    expect(revoked.json.revoked_at).not.toBeNull();

    const missing = await runCli(['partner', 'show', 'nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND');
    const unknown = await runCli(['teleport'], env);
    expect(unknown.code).toBe(2);

    const settingsFile = path.join(dir, 'settings.json');
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        tables: [{ name: 'T1', min_party: 1, max_party: 4 }],
        service_hours: [{ day: 0, start: '18:00', last_seating: '21:00' }],
        notes: 'cli',
      }),
    );
    const set = await runCli(['business', 'reservation-settings', upserted.json.id, settingsFile], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ notes: 'cli', party_size: { min: 1, max: 10 }, max_future_days: 90 });
    expect((await runCli(['business', 'reservation-settings', 'cli-diner-toronto'], env)).json.tables).toEqual([
      { name: 'T1', min_party: 1, max_party: 4 },
    ]);

    // Streamed imports from files, with progress on stderr.
    const lines = path.join(dir, 'businesses.jsonl');
    fs.writeFileSync(
      lines,
      ['CLI One', 'CLI Two'].map((name, i) => JSON.stringify(sampleBusiness({ id: `cli-import-${i}`, name }))).join('\n'),
    );
    const imported = await runCli(['business', 'import', lines], env);
    expect(imported.json).toEqual({
      imported: 2,
      created: 2,
      updated: 0,
      not_searchable: { count: 0, no_reviews: 0, closed: 0, no_coordinates: 0 },
    });
    expect(imported.stderr).toMatch(/checked 2 businesses\nimported 2 businesses/);
    // A CSV with a header row, by its file name; the note on stderr says which search will not list.
    const businessesCsv = path.join(dir, 'businesses.csv');
    fs.writeFileSync(
      businessesCsv,
      'id,name,address1,city,state,country,timezone,latitude,longitude,review_count\n' +
        'cli-csv-0,"CLI Three, by the Bay",1 Main St,Toronto,ON,CA,America/Toronto,43.65,-79.38,12\n' +
        'cli-csv-1,CLI Four,2 Main St,Toronto,ON,CA,America/Toronto,43.65,-79.38,0\n',
    );
    const fromCsv = await runCli(['business', 'import', businessesCsv], env);
    expect(fromCsv.code, fromCsv.stderr).toBe(0);
    expect(fromCsv.json).toMatchObject({ imported: 2, created: 2, not_searchable: { count: 1, no_reviews: 1 } });
    expect(fromCsv.stderr).toMatch(/note: 1 of the 2 imported businesses will not appear in search: 1 has no reviews/);
    expect((await runCli(['business', 'show', 'cli-csv-0'], env)).json.name).toBe('CLI Three, by the Bay');
    const settingsLines = path.join(dir, 'settings.jsonl');
    fs.writeFileSync(
      settingsLines,
      ['cli-import-0', 'cli-import-1']
        .map((id) =>
          JSON.stringify({ business_id: id, settings: { tables: [{ name: 'T1', min_party: 1, max_party: 4 }], service_hours: [] } }),
        )
        .join('\n'),
    );
    const settingsImported = await runCli(['business', 'import-reservation-settings', settingsLines], env);
    expect(settingsImported.json).toEqual({ imported: 2 });
    expect(settingsImported.stderr).toMatch(/checked 2 reservation settings\nimported 2 reservation settings/);
    const noSuchReservation = await runCli(['reservation', 'cancel', '00000000-0000-0000-0000-000000000000'], env);
    expect(noSuchReservation.code).toBe(1);
    expect(noSuchReservation.stderr).toContain('NOT_FOUND');

    const hookSet = await runCli(
      ['webhook', 'set', id, '--url', 'http://127.0.0.1:9/hook', '--client-id', 'cli-client', '--events', 'NEW_EVENT'],
      env,
    );
    expect(hookSet.code, hookSet.stderr).toBe(0);
    expect(hookSet.json).toMatchObject({ status: 'unverified', event_types: ['NEW_EVENT'], secret: expect.stringMatching(/^whsec_/) });
    const verify = await runCli(['webhook', 'verify', id], env);
    expect(verify.json).toMatchObject({ status: 'failed', status_reason: expect.stringMatching(/request failed/) });
    expect((await runCli(['webhook', 'set', id, '--url', 'http://10.0.0.1/hook', '--client-id', 'c'], env)).code).toBe(1);
    const lead = await runCli(['event', 'lead', upserted.json.id], env);
    expect(lead.json).toMatchObject({ event_id: expect.any(String), message_id: expect.stringMatching(/^msg_/) });
    expect((await runCli(['webhook', 'deliveries', '--partner', id], env)).json).toEqual([]);

    const reset = await runCli(['admin-token', 'reset'], env);
    expect(reset.json.admin_token).toMatch(/^pbs_admin_/);
  });

  it('sets up advertising (flags, category policy, promotions, held jobs, metrics) and the waitlist from the CLI', async () => {
    const env = target.env;
    const biz = (await runCli(['business', 'list', '--limit', '1'], env)).json.businesses[0].id as string;
    expect((await runCli(['advertising', 'flags', biz, '--restricted', 'true'], env)).json).toEqual({
      business_id: biz,
      removed_from_search: false,
      restricted_from_advertising: true,
    });
    expect((await runCli(['advertising', 'flags', biz, '--restricted', 'false'], env)).json.restricted_from_advertising).toBe(false);
    expect((await runCli(['advertising', 'category-policy', 'decline', 'cannabis_clinics', '--reason', 'regulated'], env)).json).toEqual({
      declined: [{ category: 'cannabis_clinics', reason: 'regulated' }],
    });
    expect((await runCli(['advertising', 'category-policy', 'allow', 'cannabis_clinics'], env)).json).toEqual({ declined: [] });
    const promo = await runCli(['advertising', 'promotion', 'set', 'SPRING', '--types', 'CPC,BP', '--min-budget', '10000'], env);
    expect(promo.json).toEqual({
      code: 'SPRING',
      program_types: ['CPC', 'BP'],
      min_budget: 10000,
      max_budget: null,
      months: 6,
      active: true,
    });
    expect((await runCli(['advertising', 'promotion', 'list'], env)).json.promotions).toHaveLength(1);
    expect((await runCli(['advertising', 'hold-new-jobs', 'on'], env)).json).toEqual({ hold_new_jobs: true });
    expect((await runCli(['advertising', 'hold-new-jobs', 'off'], env)).json).toEqual({ hold_new_jobs: false });
    // The demo's three advertisers (the businesses of its leads) were made through jobs, applied at once.
    expect(
      (await runCli(['advertising', 'jobs'], env)).json.jobs.map((j: { status: string; kind: string }) => `${j.kind} ${j.status}`),
    ).toEqual(['create COMPLETED', 'create COMPLETED', 'create COMPLETED']);
    expect((await runCli(['advertising', 'programs', '--business', biz], env)).json).toEqual({ programs: [] });
    const noProgram = await runCli(['advertising', 'features', 'no-such-program'], env);
    expect(noProgram.code).toBe(1);
    expect(noProgram.stderr).toMatch(/NOT_FOUND|No program/);
    const file = path.join(env.PBS_DATA_DIR, 'metrics.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ program_id: 'no-such-program', date: '2031-05-05', spend: 100 })}\n`);
    const refused = await runCli(['advertising', 'import-metrics', file], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/No such program no-such-program; nothing was imported/);
    expect((await runCli(['advertising', 'flags', biz, '--restricted', 'maybe'], env)).code).toBe(2);

    // The waitlist's restaurant side, from the CLI too.
    expect((await runCli(['waitlist', 'close', biz, '--reason', 'special_event'], env)).json).toMatchObject({
      manual_state: 'CLOSED',
      closed_reason: 'special_event',
    });
    const walkIn = await runCli(['waitlist', 'walk-in', biz, '--party-size', '3', '--name', 'Door'], env);
    expect(walkIn.json).toMatchObject({ state: 'WAITING', party_size: 3, name: 'Door' });
    expect((await runCli(['waitlist', 'seat', walkIn.json.visit_id], env)).json.state).toBe('SEATED');
  });

  it('loads reviews and engagement activity from the CLI, with progress, and scores the weeks', async () => {
    const env = target.env;
    const record = path.join(env.PBS_DATA_DIR, 'reviewed.json');
    fs.writeFileSync(record, JSON.stringify(sampleBusiness({ name: 'Reviewed by CLI' })));
    const biz = (await runCli(['business', 'upsert', record], env)).json.id as string;
    const added = await runCli(
      [
        'review',
        'add',
        biz,
        '--rating',
        '4',
        '--text',
        'Bonne adresse.',
        '--locale',
        'fr_FR',
        '--user',
        'Léa Martin',
        '--time',
        '2031-05-01T12:00:00Z',
      ],
      env,
    );
    expect(added.json).toMatchObject({
      business_id: biz,
      rating: 4,
      locale: 'fr_FR',
      text: { fr_FR: 'Bonne adresse.' },
      user: { name: 'Léa Martin' },
    });
    const responded = await runCli(['review', 'respond', added.json.id, '--text', 'Merci !', '--name', 'Chef', '--role', 'owner'], env);
    expect(responded.json.public_response).toMatchObject({ text: 'Merci !', business_user: { name: 'Chef', role: 'OWNER' } });
    const reviews = path.join(env.PBS_DATA_DIR, 'reviews.jsonl');
    fs.writeFileSync(
      reviews,
      [1, 2, 3].map((i) => JSON.stringify({ business_id: biz, rating: i, text: `Review ${i}`, user: { name: `User ${i}` } })).join('\n'),
    );
    const imported = await runCli(['review', 'import', reviews, '--no-notify'], env);
    expect(imported.json).toEqual({ imported: 3, created: 3, updated: 0 });
    expect(imported.stderr).toMatch(/imported 3\/3 reviews/);
    expect((await runCli(['review', 'list', biz], env)).json.total).toBe(4);
    expect((await runCli(['review', 'rate', biz], env)).code).toBe(2);

    const activity = path.join(env.PBS_DATA_DIR, 'activity.jsonl');
    fs.writeFileSync(activity, `${JSON.stringify({ business_id: biz, week: '2031-04-30', page_views: 12, calls_and_messages: 2 })}\n`);
    const loaded = await runCli(['engagement', 'import', activity], env);
    expect(loaded.json).toMatchObject({ imported: 1, weeks: ['2031-04-28'], scored: [{ week: '2031-04-28', scored: true }] });
    expect(loaded.stderr).toMatch(/loaded 1\/1 lines\nscored the week of 2031-04-28/);
    const shown = await runCli(['engagement', 'show', biz], env);
    expect(shown.json.weeks[0]).toMatchObject({
      week: '2031-04-28',
      activity: { page_views: 12 },
      scores: { engagement_metric: expect.any(Number) },
    });
  });

  it('runs as production with PBS_SANDBOX=0: needs its secrets, seeds and prints nothing, keeps files to its owner', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-prod-'));
    const env = { ...target.env, PBS_DATA_DIR: path.join(dir, 'data'), PBS_SANDBOX: '0' };
    try {
      const noKey = await runCli(['serve'], env);
      expect(noKey.code).toBe(2);
      expect(noKey.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^pbs: configuration: PBS_SANDBOX=0 needs PBS_SECRET_KEY/)]);
      const withKey = { ...env, PBS_SECRET_KEY: randomBytes(32).toString('base64') };
      const noToken = await runCli(['serve'], withKey);
      expect(noToken.code).toBe(2);
      expect(noToken.stderr).toMatch(/needs PBS_ADMIN_TOKEN/);

      const shortToken = await runCli(['serve'], { ...withKey, PBS_ADMIN_TOKEN: 'short' });
      expect(shortToken.code).toBe(2);
      expect(shortToken.stderr).toMatch(/PBS_ADMIN_TOKEN must be at least 32 characters/);
      // Long enough is not enough: easy to guess is refused, with how to make a good one.
      const weakToken = await runCli(['serve'], { ...withKey, PBS_ADMIN_TOKEN: 'Summer2024!Summer2024!Summer2024!' });
      expect(weakToken.code).toBe(2);
      expect(weakToken.stderr).toMatch(/PBS_ADMIN_TOKEN is too easy to guess .*openssl rand -base64 32/);
      const weakKey = await runCli(['serve'], {
        ...withKey,
        PBS_SECRET_KEY: 'k'.repeat(48),
        PBS_ADMIN_TOKEN: randomBytes(32).toString('base64'),
      });
      expect(weakKey.code).toBe(2);
      expect(weakKey.stderr).toMatch(/PBS_SECRET_KEY is too easy to guess/);

      // A data directory an older pbs left open to others (0755) is tightened.
      fs.mkdirSync(env.PBS_DATA_DIR, { mode: 0o755 });
      fs.chmodSync(env.PBS_DATA_DIR, 0o755);
      const token = randomBytes(32).toString('base64url');
      const server = await startServerProcess({ ...withKey, PBS_ADMIN_TOKEN: token });
      try {
        const banner = server.output();
        expect(banner).not.toMatch(/API key|password|secret|admin token/i);
        expect((await call(server.url, 'GET', '/admin/v1/partners', { token })).body.total).toEqual(
          target.name === 'sqlite' ? 0 : expect.any(Number),
        );
        if (target.name === 'sqlite') {
          expect((await call(server.url, 'GET', '/admin/v1/businesses', { token })).body.total).toBe(0);
          expect(fs.statSync(env.PBS_DATA_DIR).mode & 0o777).toBe(0o700);
          expect(fs.statSync(path.join(env.PBS_DATA_DIR, 'pbs.sqlite')).mode & 0o777).toBe(0o600);
        }
        expect(
          fs
            .readdirSync(dir)
            .flatMap((d) => fs.readdirSync(path.join(dir, d)))
            .filter((f) => f.includes('credentials')),
        ).toEqual([]);
      } finally {
        expect(await server.stop('SIGTERM')).toBe(0);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a database pbs cannot use', () => {
  it('is said in one line, without a stack trace', async () => {
    const url = new URL(process.env.PBS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    url.searchParams.set('options', '-c search_path=no_such_schema_here');
    const noSchema = await runCli(['migrate'], { DATABASE_URL: url.toString() });
    expect(noSchema.code).toBe(1);
    expect(noSchema.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^pbs: cannot use the database postgres:\/\/127\.0\.0\.1:5432\/test: /),
    ]);
    url.pathname = '/no_such_database_here';
    const noDatabase = await runCli(['migrate'], { DATABASE_URL: url.toString() });
    expect(noDatabase.code).toBe(1);
    expect(noDatabase.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^pbs: cannot use the database .*no_such_database_here/)]);
  });
});

describe('server launch flags', () => {
  it('are the same for bin/pbs.js as for npm start (package.json config.serverNodeFlags)', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const shebang = fs.readFileSync(path.join(root, 'bin/pbs.js'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${pkg.config.serverNodeFlags}`);
    expect(pkg.scripts.start).toContain('node $npm_package_config_serverNodeFlags dist/main.js serve');
  });
});
