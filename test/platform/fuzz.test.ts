import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/demo/demo-dataset.js';
import { ADMIN_TOKEN, admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

const REQUESTS = 5000;
const CONCURRENCY = 16;

interface Sent {
  method: string;
  path: string;
  status: number;
  body: string;
  contentType: string | undefined;
}

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Sent | null> {
  const url = new URL(base);
  return new Promise((resolve) => {
    let req: http.ClientRequest;
    try {
      req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            method,
            path,
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            contentType: res.headers['content-type'],
          }),
        );
        res.on('error', () => resolve(null));
      });
    } catch {
      return resolve(null); // the client refused to build it (e.g. an illegal header); not sent
    }
    req.on('error', () => resolve(null));
    req.setTimeout(10_000, () => req.destroy());
    if (body) req.end(body);
    else req.end();
  });
}

describe.each(dialects)('fuzzing the running server on %s', (dialect) => {
  let h: Harness;
  let paths: string[];
  let secrets: { apiKey: string; basic: string; clientId: string; partnerId: string; businessId: string; credentialId: string };

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_BODY_LIMIT_BYTES: '65536', PBS_RATE_LIMIT_PER_SECOND: '1000000' } });
    const p = await createPartner(h.url, ['reservations', 'advertising', 'engagement']);
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness() })).body;
    secrets = {
      apiKey: p.apiKey.api_key,
      basic: Buffer.from(`${p.basic.username}:${p.basic.password}`).toString('base64'),
      clientId: p.oauth.client_id,
      partnerId: p.partner.id,
      businessId: business.id,
      credentialId: p.apiKey.id,
    };
    paths = Object.keys((await call(h.url, 'GET', '/openapi.json')).body.paths);
  });
  afterAll(() => h.close());

  it(`answers ${REQUESTS} malformed requests without a single 5xx`, async () => {
    const random = seededRandom(dialect === 'sqlite' ? 1 : 2);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const junk = (max: number) => {
      const alphabet = 'abcXYZ019 -_.~%/?#&=+;:@!$\'"()*,[]{}<>\\^`|\u00e9\u4e2d\u{1F600}\u0000\n';
      const chars = [...alphabet];
      let s = '';
      const n = Math.floor(random() * max);
      for (let i = 0; i < n; i++) s += pick(chars);
      return s;
    };
    const segment = () =>
      pick([
        secrets.partnerId,
        secrets.businessId,
        secrets.credentialId,
        'sample-bistro-san-francisco',
        encodeURIComponent(junk(30)),
        'x'.repeat(600),
        '%E0%A4%A',
        '..',
        '',
        '0',
        '-1',
        'null',
        'reservations',
        'teleport',
      ]);
    const fillTemplate = (template: string) => template.replace(/\{[^}]+\}/g, () => segment());
    const randomPath = () => {
      const roll = random();
      if (roll < 0.65) return fillTemplate(pick(paths));
      if (roll < 0.8) return `/${[segment(), segment(), segment()].join('/')}`;
      if (roll < 0.9) return `/v3/${encodeURIComponent(junk(40))}`;
      return `/admin/v1/${pick(['partners', 'businesses', 'clock', 'jobs', 'credentials'])}/${segment()}/${segment()}`;
    };
    const randomQuery = () => {
      if (random() < 0.4) return '';
      const parts: string[] = [];
      const n = 1 + Math.floor(random() * 5);
      for (let i = 0; i < n; i++) {
        const key = pick([
          'limit',
          'offset',
          'city',
          'state',
          'type',
          'business_ids',
          encodeURIComponent(junk(8)),
          'limit[]',
          '__proto__',
          'date',
          'time',
          'covers',
          'get_covers_range',
          'subscription_type',
          'notice',
          'error',
          'reservation_date',
          'location',
        ]);
        const value = pick([
          '-1',
          '0',
          '1e309',
          '-1e309',
          '1e20',
          'NaN',
          '99999999999999999999',
          'true',
          '',
          encodeURIComponent(junk(20)),
          '%zz',
          'dead',
          'pending',
          '9999-12-30',
          '9999-12-31',
          '0000-01-01',
          '2031-05-07',
          '19:00',
          '24:00',
          'WEBHOOK',
          '%3Cscript%3E',
          'San%20Francisco',
        ]);
        parts.push(`${key}=${value}`);
      }
      return `?${parts.join('&')}`;
    };
    const randomJson = (depth = 0): unknown => {
      const roll = random();
      if (depth > 3 || roll < 0.3)
        return pick([null, true, false, 0, -1, 1.5, 1e308, -1e308, 1e20, 2 ** 53 + 2, '', junk(20), 'x'.repeat(1000)]);
      if (roll < 0.6) {
        const out: Record<string, unknown> = {};
        const keys = [
          'name',
          'interfaces',
          'kind',
          'username',
          'location',
          'timezone',
          'rating',
          'id',
          'enabled',
          'per_second',
          'per_day',
          'time',
          'frozen',
          'seconds',
          'minutes',
          'hours',
          'min_budget',
          'max_budget',
          'party_size',
          'features',
          'comment',
          'grace_seconds',
          'grant_type',
          'client_id',
          '__proto__',
          'constructor',
        ];
        const n = Math.floor(random() * 6);
        for (let i = 0; i < n; i++) out[pick(keys)] = randomJson(depth + 1);
        return out;
      }
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(depth + 1));
    };
    const randomBody = (): { body?: Buffer; type?: string } => {
      const roll = random();
      if (roll < 0.2) return {};
      if (roll < 0.55) return { body: Buffer.from(JSON.stringify(randomJson())), type: 'application/json' };
      if (roll < 0.65) return { body: Buffer.from(JSON.stringify(randomJson()).slice(0, -1)), type: 'application/json' };
      // Nested or wide JSON: refused by its shape before JSON.parse (issue 24).
      if (roll < 0.68)
        return {
          body: Buffer.from(
            pick(['['.repeat(100_000), `{"a":${'['.repeat(33)}`, `[${'0,'.repeat(100_001)}0]`, '{"x":'.repeat(40) + '1' + '}'.repeat(40)]),
          ),
          type: 'application/json',
        };
      if (roll < 0.7)
        return {
          body: Buffer.from(`grant_type=${encodeURIComponent(junk(10))}&client_id=${secrets.clientId}&client_secret=${junk(10)}&a=1&a=2`),
          type: 'application/x-www-form-urlencoded',
        };
      if (roll < 0.72)
        return {
          body: Buffer.from(Array.from({ length: 100 + Math.floor(random() * 2000) }, (_, i) => `p${i}=${i}`).join('&')),
          type: 'application/x-www-form-urlencoded',
        };
      if (roll < 0.78) return { body: Buffer.from(`${secrets.businessId},ok\n${junk(50)}\n"unterminated`), type: 'text/csv' };
      if (roll < 0.84) return { body: Buffer.from(`${JSON.stringify(sampleBusiness())}\n${junk(80)}`), type: 'application/x-ndjson' };
      if (roll < 0.9)
        return {
          body: Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256))),
          type: pick(['application/octet-stream', 'application/json', 'multipart/form-data; boundary=x', 'text/xml']),
        };
      if (roll < 0.95) return { body: Buffer.alloc(70_000, 'a'), type: 'application/json' };
      return { body: Buffer.from(junk(100)), type: junk(20) };
    };
    const randomAuth = (): string | undefined =>
      pick([
        undefined,
        `Bearer ${ADMIN_TOKEN}`,
        `Bearer ${ADMIN_TOKEN}`,
        `Bearer ${ADMIN_TOKEN}`,
        `Bearer ${secrets.apiKey}`,
        `Basic ${secrets.basic}`,
        `Bearer ${junk(30)}`,
        `Basic ${Buffer.from(junk(20)).toString('base64')}`,
        `Basic ${Buffer.from(`user\u0000${junk(5)}:${junk(5)}`).toString('base64')}`,
        `Basic ${Buffer.from(`${junk(5)}:pass\u0000word`).toString('base64')}`,
        'Basic !!!',
        'Bearer',
        junk(15),
      ]);

    const results: Sent[] = [];
    let attempts = 0;
    const worker = async () => {
      while (results.length < REQUESTS && attempts < REQUESTS * 3) {
        attempts++;
        const method = pick(['GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
        const { body, type } = randomBody();
        const headers: Record<string, string> = {};
        const auth = randomAuth();
        if (auth !== undefined) headers.authorization = auth;
        if (type !== undefined) headers['content-type'] = type;
        if (random() < 0.2) headers['idempotency-key'] = junk(40);
        if (random() < 0.1) headers['x-request-id'] = junk(40);
        if (random() < 0.1) headers.accept = junk(20);
        const sent = await send(
          h.url,
          method,
          randomPath() + randomQuery(),
          headers,
          method === 'GET' || method === 'HEAD' ? undefined : body,
        );
        if (sent) results.push(sent);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(results.length).toBeGreaterThanOrEqual(REQUESTS);
    const serverErrors = results.filter((r) => r.status >= 500);
    expect(serverErrors.map((r) => `${r.method} ${r.path.slice(0, 120)} → ${r.status} ${r.body.slice(0, 200)}`)).toEqual([]);
    // Every error answer has the catalogue's shape.
    for (const r of results.filter((x) => x.status >= 400 && x.method !== 'HEAD')) {
      expect(r.contentType, `${r.method} ${r.path}`).toMatch(/^application\/json/);
      const parsed = JSON.parse(r.body);
      expect(typeof parsed.error?.code, `${r.method} ${r.path.slice(0, 100)} ${r.status} ${r.body.slice(0, 200)}`).toBe('string');
      expect(typeof parsed.error.description).toBe('string');
    }
    // The fuzz must reach handlers, not only bounce off authentication.
    const histogram: Record<number, number> = {};
    for (const r of results) histogram[r.status] = (histogram[r.status] ?? 0) + 1;
    console.log(`fuzz on ${dialect}: ${results.length} requests, statuses ${JSON.stringify(histogram)}`);
    expect(results.filter((r) => r.status < 300).length).toBeGreaterThan(30);
    expect(new Set(results.map((r) => r.status)).size).toBeGreaterThan(5);
  });
});
