import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foundationMigrations } from '../../src/app.js';
import { BusinessService } from '../../src/businesses/business-service.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { CredentialService } from '../../src/partners/credential-service.js';
import { PartnerService } from '../../src/partners/partner-service.js';
import { InventoryStore } from '../../src/reservations/inventory-store.js';
import { inventorySequenceMigration } from '../../src/reservations/inventory-tables.js';
import { dropStartTimeIndexesMigration, reservationsMigration } from '../../src/reservations/reservation-tables.js';
import { ControllableClock } from '../../src/platform/clock.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { keysetAfter } from '../../src/platform/db/keyset.js';
import { CompiledQuery } from 'kysely';
import { SecretKeys } from '../../src/platform/secret-keys.js';
import { dialects, openTestDatabase, sampleBusiness, T0, type TestDatabase } from '../support/harness.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

describe.each(dialects)('in-memory caches on %s', (dialect) => {
  let database: TestDatabase;
  const clock = new ControllableClock({ frozenAtMs: T0 });

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    // The catalogue also reads reservation settings and tables.
    await migrateToLatest(database, [
      ...foundationMigrations,
      reservationsMigration,
      dropStartTimeIndexesMigration,
      inventorySequenceMigration,
    ]);
  });
  afterAll(() => database.drop());

  it('catalogue: past half its staleness it refreshes in the background, without a reader waiting', async () => {
    let wall = 1_000_000;
    const directory = new BusinessService(database, clock);
    const sources = {
      sequence: () => directory.catalogSequence(),
      businesses: directory.changedPage.bind(directory),
      inventories: (after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number) =>
        new InventoryStore(database.db).changedPage(after, upTo, cursor, limit),
    };
    const catalog = new Catalog(sources, 1000, () => wall);
    // Another process's writes: they move the catalogue sequence, and do not invalidate this copy.
    const elsewhere = new BusinessService(database, clock);
    const first = (await elsewhere.upsert(sampleBusiness({ name: 'First' }))).business;
    expect((await catalog.find(first.id))?.name).toBe('First');
    const second = (await elsewhere.upsert(sampleBusiness({ name: 'Second' }))).business;

    wall += 400; // fresh: answered from memory, nothing re-checked
    expect(catalog.findFresh(first.id)).toBeDefined();
    expect(catalog.findFresh(second.id)).toBeUndefined();

    wall += 200; // past half: still answered at once, and re-checked meanwhile
    expect(catalog.findFresh(first.id)).toBeDefined();
    await expect.poll(() => catalog.findFresh(second.id)?.name, { timeout: TEST_DEADLINE_MS }).toBe('Second');
  });

  it('catalogue: pages of one import (one sequence number) are walked from the cursor, each once', async () => {
    const directory = new BusinessService(database, clock);
    const lines = Array.from({ length: 1200 }, (_, i) =>
      JSON.stringify(sampleBusiness({ id: `paged-${String(i).padStart(4, '0')}`, alias: `paged-${i}`, name: `Paged ${i}` })),
    );
    await directory.importJsonLines(lines.join('\n'));
    const upTo = await directory.catalogSequence();
    const seen: string[] = [];
    for (let cursor: { seq: number; id: string } | undefined; ;) {
      const page = await directory.changedPage(upTo - 1, upTo, cursor, 500);
      seen.push(...page.map((row) => row.business.id));
      if (page.length < 500) break;
      cursor = { seq: page[page.length - 1].seq, id: page[page.length - 1].business.id };
    }
    expect(seen).toEqual(lines.map((_, i) => `paged-${String(i).padStart(4, '0')}`));
    if (dialect === 'sqlite') {
      // The page after a cursor searches the index by the row value: not by the sequence alone
      // and then row by row, which made a page deep into a country's import as costly as all before it.
      const query = keysetAfter(
        database.db.selectFrom('businesses').select('id').where('catalog_seq', '<=', upTo),
        { sequence: 'catalog_seq', id: 'id' },
        upTo - 1,
        { seq: upTo, id: 'paged-0600' },
      )
        .orderBy('catalog_seq')
        .orderBy('id')
        .limit(500)
        .compile();
      const plan = await database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      expect(plan.rows.map((row) => row.detail).join('; ')).toMatch(/INDEX businesses_catalog_seq \(\(catalog_seq,id\)>\(\?,\?\)/);
    }
  });

  it('catalogue: a load of many pages lets the event loop answer between them', async () => {
    const directory = new BusinessService(database, clock);
    const lines = Array.from({ length: 1100 }, (_, i) =>
      JSON.stringify(sampleBusiness({ id: `turns-${i}`, alias: `turns-${i}`, name: `Turns ${i}` })),
    );
    await directory.importJsonLines(lines.join('\n'));
    const sources = {
      sequence: () => directory.catalogSequence(),
      businesses: directory.changedPage.bind(directory),
      inventories: (after: number, upTo: number, cursor: { seq: number; id: string } | undefined, limit: number) =>
        new InventoryStore(database.db).changedPage(after, upTo, cursor, limit),
    };
    const catalog = new Catalog(sources);
    const events: string[] = [];
    const loading = catalog.current().then(() => events.push('loaded'));
    // What a request would be: work queued on the event loop once the load has begun. On SQLite
    // every page answers without a turn of the loop; the load must still give it one.
    setImmediate(() => events.push('answered'));
    await loading;
    expect(events).toEqual(['answered', 'loaded']);
    expect(catalog.size).toBeGreaterThanOrEqual(1100);
  });

  it('credentials: a load that began before a revocation does not bring the credential back', async () => {
    const credentials = new CredentialService(database, clock, 60_000, new SecretKeys(database.db, undefined));
    const partners = new PartnerService(database, clock, new BusinessService(database, clock), () => credentials.invalidate());
    const partner = await partners.create({ name: 'Cached', interfaces: ['reservations'] });
    const issued = await credentials.issue(partner.id, { kind: 'api_key' });
    const verifying = credentials.verifyBearer(issued.api_key!); // loads from the database
    await credentials.revoke(issued.id);
    await verifying; // may have read the key before the revocation: its answer must not be kept
    expect(await credentials.verifyBearer(issued.api_key!)).toBeNull();
    expect(credentials.knownBearer(issued.api_key!)).toBeUndefined();
  });

  it('credentials: concurrent verifications of an unknown token share one load', async () => {
    const credentials = new CredentialService(database, clock, 60_000, new SecretKeys(database.db, undefined));
    const partner = await new PartnerService(database, clock, new BusinessService(database, clock)).create({
      name: 'Shared',
      interfaces: ['reservations'],
    });
    const issued = await credentials.issue(partner.id, { kind: 'api_key' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => credentials.verifyBearer(issued.api_key!)));
    expect(new Set(answers).size).toBe(1); // the same object: one load answered them all
    expect(answers[0]?.partnerId).toBe(partner.id);
  });
});
