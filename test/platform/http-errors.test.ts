import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { probeModule } from '../support/probe-module.js';

function rawRequest(url: string, payload: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(payload));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  });
}

describe.each(dialects)('HTTP error shape on %s', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    h = await startPbs(dialect, { modules: (ctx, services) => [probeModule(ctx, services)], env: { PBS_BODY_LIMIT_BYTES: '2048' } });
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
  });
  afterAll(() => h.close());

  const expectError = (r: { status: number; body: any; headers: Headers }, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ error: expect.objectContaining({ code, description: expect.any(String) }) });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-request-id')).toBeTruthy();
  };

  it('answers malformed JSON with 400 MALFORMED_JSON and writes nothing', async () => {
    const r = await call(h.url, 'POST', '/admin/v1/partners', {
      token: 'test-admin-token',
      body: '{"name": ',
      contentType: 'application/json',
    });
    expectError(r, 400, 'MALFORMED_JSON');
    expect((await admin(h.url, 'GET', '/admin/v1/partners')).body.total).toBe(1);
  });

  it('answers an unsupported content type with 415', async () => {
    const r = await call(h.url, 'POST', '/probe/write', { token: key, body: '<xml/>', contentType: 'application/xml' });
    expectError(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await call(h.url, 'POST', '/probe/write', { token: key, json: { big: 'x'.repeat(5000) } });
    expectError(r, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unknown route with 404 NOT_FOUND and an unknown method with 405 and Allow', async () => {
    expectError(await call(h.url, 'GET', '/v3/nothing/here'), 404, 'NOT_FOUND');
    const r = await call(h.url, 'PATCH', '/admin/v1/partners');
    expectError(r, 405, 'METHOD_NOT_ALLOWED');
    expect(r.headers.get('allow')).toContain('POST');
    expect(r.headers.get('allow')).toContain('GET');
  });

  it('answers schema violations with 400 VALIDATION_ERROR naming the field', async () => {
    const missing = await admin(h.url, 'POST', '/admin/v1/partners', { json: {} });
    expectError(missing, 400, 'VALIDATION_ERROR');
    expect(missing.body.error.field).toBe('name');
    const wrongType = await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'x', interfaces: ['teleport'] } });
    expectError(wrongType, 400, 'VALIDATION_ERROR');
    const badQuery = await admin(h.url, 'GET', '/admin/v1/partners?limit=abc');
    expectError(badQuery, 400, 'VALIDATION_ERROR');
    expect(badQuery.body.error.field).toBe('limit');
  });

  it('answers a server fault with 500 INTERNAL_ERROR without leaking details', async () => {
    const r = await call(h.url, 'POST', '/probe/fail', { token: key, json: {} });
    expectError(r, 500, 'INTERNAL_ERROR');
    expect(r.text).not.toContain('boom');
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await call(h.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await call(h.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a malformed HTTP request in the same error shape', async () => {
    const response = await rawRequest(h.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toContain('"code":"INVALID_REQUEST"');
  });

  it('serves health, readiness and Prometheus metrics', async () => {
    expect((await call(h.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(h.url, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    const metrics = await call(h.url, 'GET', '/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics.text).toContain('pbs_http_requests_total{method="GET",route="/healthz",status="200"}');
    expect(metrics.text).toContain('pbs_http_request_duration_seconds_bucket');
  });
});

describe.each(dialects)('NUL characters and non-finite numbers on %s', (dialect) => {
  it('are refused with 400 wherever they come from, never reaching the database', async () => {
    const h = await startPbs(dialect);
    try {
      const partner = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Nul' } })).body;
      const cases = [
        await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'a\u0000b' } }),
        await admin(h.url, 'GET', '/admin/v1/partners/abc%00def'),
        await admin(h.url, 'GET', '/admin/v1/businesses?city=x%00'),
        await admin(h.url, 'POST', `/admin/v1/partners/${partner.id}/businesses/import`, { body: 'id\u0000,x', contentType: 'text/csv' }),
        await admin(h.url, 'POST', '/admin/v1/businesses/import', {
          body: JSON.stringify(sampleBusiness({ name: 'escaped \u0000 nul' })),
          contentType: 'application/x-ndjson',
        }),
      ];
      cases.push(await admin(h.url, 'GET', '/admin/v1/tasks?limit=1e309'));
      cases.push(
        await admin(h.url, 'PUT', `/admin/v1/partners/${partner.id}/interfaces/engagement`, {
          body: '{"per_second": 1e309}',
          contentType: 'application/json',
        }),
      );
      for (const r of cases) {
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('VALIDATION_ERROR');
      }
    } finally {
      await h.close();
    }
  });
});
