import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerInterfaces } from '../../src/platform/auth/principal.js';
import { admin, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

describe.each(dialects)('operator API on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  describe('partners', () => {
    it('creates partners with every interface disabled by default', async () => {
      const created = await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Acme Bookings' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Acme Bookings', status: 'active' });
      expect(created.body.id).toMatch(/^[A-Za-z0-9]{22}$/);
      for (const name of partnerInterfaces)
        expect(created.body.interfaces[name]).toEqual({ enabled: false, per_second: null, per_day: null });
      const shown = await admin(h.url, 'GET', `/admin/v1/partners/${created.body.id}`);
      expect(shown.body).toEqual(created.body);
    });

    it('enables interfaces one by one with their own limits, lists and disables partners', async () => {
      const p = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Grants', interfaces: ['waitlist'] } })).body;
      expect(p.interfaces.waitlist.enabled).toBe(true);
      const changed = await admin(h.url, 'PUT', `/admin/v1/partners/${p.id}/interfaces/engagement`, {
        json: { enabled: true, per_second: 7, per_day: 100 },
      });
      expect(changed.body.interfaces.engagement).toEqual({ enabled: true, per_second: 7, per_day: 100 });
      expect(changed.body.interfaces.waitlist.enabled).toBe(true);
      const unknown = await admin(h.url, 'PUT', `/admin/v1/partners/${p.id}/interfaces/teleport`, { json: { enabled: true } });
      expect(unknown.status).toBe(400);
      const disabled = await admin(h.url, 'POST', `/admin/v1/partners/${p.id}/disable`);
      expect(disabled.body.status).toBe('disabled');
      const list = await admin(h.url, 'GET', '/admin/v1/partners?limit=100');
      expect(list.body.partners.map((x: { id: string }) => x.id)).toContain(p.id);
      expect((await admin(h.url, 'GET', '/admin/v1/partners/nope')).status).toBe(404);
      expect((await admin(h.url, 'POST', '/admin/v1/partners/nope/credentials', { json: { kind: 'api_key' } })).status).toBe(404);
    });

    it('issues basic credentials with a chosen username once only', async () => {
      const p = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Ingest' } })).body;
      const first = await admin(h.url, 'POST', `/admin/v1/partners/${p.id}/credentials`, {
        json: { kind: 'basic', username: 'ingest-user' },
      });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ kind: 'basic', username: 'ingest-user', public_id: 'ingest-user' });
      const again = await admin(h.url, 'POST', `/admin/v1/partners/${p.id}/credentials`, {
        json: { kind: 'basic', username: 'ingest-user' },
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
    });
  });

  describe('businesses', () => {
    it('creates a business with every public search field, derived fields filled', async () => {
      const r = await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Café Zoë' }) });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        alias: 'cafe-zoe-san-francisco',
        name: 'Café Zoë',
        image_url: '',
        is_closed: false,
        review_count: 10,
        rating: 4.5,
        transactions: [],
        price: '$$',
        phone: '+14155550100',
        display_phone: '(415) 555-0100',
        attributes: {},
        timezone: 'America/Los_Angeles',
        location: { display_address: ['1 Sample St', 'San Francisco, CA 94103'], address3: '', cross_streets: null },
      });
      expect((await admin(h.url, 'GET', `/admin/v1/businesses/${r.body.id}`)).body).toEqual(r.body);
      expect((await admin(h.url, 'GET', '/admin/v1/businesses/cafe-zoe-san-francisco')).body.id).toBe(r.body.id);
    });

    it('upserts by id with PUT (201 then 200) and keeps aliases unique', async () => {
      const first = await admin(h.url, 'PUT', '/admin/v1/businesses/Bb1Cc2Dd3Ee4Ff5Gg6Hh7I', { json: sampleBusiness({ name: 'Twin' }) });
      expect(first.status).toBe(201);
      const second = await admin(h.url, 'PUT', '/admin/v1/businesses/Bb1Cc2Dd3Ee4Ff5Gg6Hh7I', {
        json: sampleBusiness({ name: 'Twin', rating: 3 }),
      });
      expect(second.status).toBe(200);
      expect(second.body.rating).toBe(3);
      const other = await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Twin' }) });
      expect(other.body.alias).toBe('twin-san-francisco-2');
      const clash = await admin(h.url, 'POST', '/admin/v1/businesses', {
        json: sampleBusiness({ name: 'Twin', alias: 'twin-san-francisco' }),
      });
      expect(clash.status).toBe(409);
    });

    it('rejects invalid records with the field named', async () => {
      const tz = await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ timezone: 'Mars/Olympus' }) });
      expect(tz.status).toBe(400);
      expect(tz.body.error.field).toBe('timezone');
      const rating = await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ rating: 4.2 }) });
      expect(rating.status).toBe(400);
      expect(rating.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('imports JSON lines all or nothing', async () => {
      const before = (await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total;
      const good = [1, 2, 3].map((n) =>
        JSON.stringify(
          sampleBusiness({ name: `Imported ${n}`, location: { city: 'Toronto', state: 'ON', country: 'CA' }, timezone: 'America/Toronto' }),
        ),
      );
      const bad = [...good, JSON.stringify(sampleBusiness({ name: '' }))].join('\n');
      const rejected = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: bad, contentType: 'application/x-ndjson' });
      expect(rejected.status).toBe(400);
      expect(rejected.body.error.description).toContain('line 4');
      expect((await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total).toBe(before);
      const accepted = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
        body: `${good.join('\n')}\n`,
        contentType: 'application/x-ndjson',
      });
      expect(accepted.body).toEqual({
        imported: 3,
        created: 3,
        updated: 0,
        not_searchable: { count: 0, no_reviews: 0, closed: 0, no_coordinates: 0 },
      });
      const toronto = await admin(h.url, 'GET', '/admin/v1/businesses?city=Toronto');
      expect(toronto.body.total).toBe(3);
      // The console's pickers: the start of a name in any case, or an id exactly; LIKE's wildcards are literal.
      const typed = await admin(h.url, 'GET', '/admin/v1/businesses?q=impORTED%202');
      expect(typed.body.businesses.map((b: { name: string }) => b.name)).toEqual(['Imported 2']);
      const byId = await admin(h.url, 'GET', `/admin/v1/businesses?q=${typed.body.businesses[0].id}`);
      expect(byId.body.total).toBe(1);
      expect((await admin(h.url, 'GET', '/admin/v1/businesses?q=%25')).body.total).toBe(0);
      // Named by their ids, as a table of ids asks.
      const named = await admin(
        h.url,
        'GET',
        `/admin/v1/businesses?ids=${typed.body.businesses[0].id},nope,${typed.body.businesses[0].id}`,
      );
      expect(named.body.businesses.map((b: { name: string }) => b.name)).toEqual(['Imported 2']);
      expect((await admin(h.url, 'GET', '/admin/v1/businesses?q=Imported_')).body.total).toBe(0);
      const notJson = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: '{nope', contentType: 'application/x-ndjson' });
      expect(notJson.status).toBe(400);
    });
  });

  describe('partner ↔ business links', () => {
    it('links, lists, unlinks and imports the onboarding CSV (all or nothing)', async () => {
      const p = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Waitlist Co', interfaces: ['waitlist'] } })).body;
      const ids: string[] = [];
      for (const n of [1, 2, 3])
        ids.push((await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `Linked ${n}` }) })).body.id);

      const linked = await admin(h.url, 'PUT', `/admin/v1/partners/${p.id}/businesses/${ids[0]}`, { json: { comment: 'first' } });
      expect(linked.body).toEqual({ partner_id: p.id, business_id: ids[0], comment: 'first' });
      expect((await admin(h.url, 'PUT', `/admin/v1/partners/${p.id}/businesses/unknown-biz`)).status).toBe(404);

      const badCsv = `business_id,comment\n${ids[1]},ok\nnot-a-business,oops\n`;
      const rejected = await admin(h.url, 'POST', `/admin/v1/partners/${p.id}/businesses/import`, {
        body: badCsv,
        contentType: 'text/csv',
      });
      expect(rejected.status).toBe(400);
      expect(rejected.body.error.description).toContain('not-a-business');
      expect((await admin(h.url, 'GET', `/admin/v1/partners/${p.id}/businesses`)).body.total).toBe(1);

      const csv = `${ids[1]},"comment, with comma"\r\n${ids[2]}\r\n`;
      const imported = await admin(h.url, 'POST', `/admin/v1/partners/${p.id}/businesses/import`, { body: csv, contentType: 'text/csv' });
      expect(imported.body).toEqual({ linked: 2 });
      const list = (await admin(h.url, 'GET', `/admin/v1/partners/${p.id}/businesses`)).body;
      expect(list.total).toBe(3);
      expect(list.businesses.find((b: { business_id: string }) => b.business_id === ids[1]).comment).toBe('comment, with comma');
      expect(list.businesses.find((b: { business_id: string }) => b.business_id === ids[2]).comment).toBeNull();

      expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${p.id}/businesses/${ids[0]}`)).status).toBe(204);
      expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${p.id}/businesses/${ids[0]}`)).status).toBe(404);
      expect((await admin(h.url, 'GET', `/admin/v1/partners/${p.id}/businesses`)).body.total).toBe(2);
    });
  });
});
