import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/platform/http/server.js';
import { Metrics } from '../../src/platform/metrics.js';

function serverWithLog(logRequests: boolean) {
  const lines: Array<Record<string, unknown>> = [];
  const app = createHttpServer({
    logLevel: 'info',
    logRequests,
    bodyLimitBytes: 1024,
    requestTimeoutMs: 30_000,
    headersTimeoutMs: 10_000,
    metrics: new Metrics(),
    logStream: { write: (line) => void lines.push(JSON.parse(line)) },
  });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/noted', async (request) => {
    request.log.warn({ detail: 42 }, 'noted');
    return { ok: true };
  });
  app.get('/boom', async () => {
    throw new Error('kaput');
  });
  return { app, lines };
}

describe('request logging', () => {
  it('logs one line per request with its request id when enabled', async () => {
    const { app, lines } = serverWithLog(true);
    await app.inject({ method: 'GET', url: '/ok', headers: { 'x-request-id': 'req-1' } });
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', reqId: 'req-1', method: 'GET', url: '/ok', status: 200 })]);
    await app.close();
  });

  // Issue 39: the process log kept query strings as sent (secret values, portal link tokens).
  it('logs a query string with its secrets redacted and guest data masked', async () => {
    const { app, lines } = serverWithLog(true);
    await app.inject({ method: 'GET', url: '/ok?token=abc123&date=2031-05-07&Api-Key=k&first%5Fname=Ada&covers=2' });
    const url = String(lines[0].url);
    expect(url).toBe('/ok?token=%5Bredacted%5D&date=2031-05-07&Api-Key=%5Bredacted%5D&first%5Fname=%5Bmasked%5D&covers=2');
    expect(url).not.toContain('abc123');
    expect(url).not.toContain('Ada');
    await app.close();
  });

  it('keeps the request id on what handlers and failures log, and nothing else when disabled', async () => {
    const { app, lines } = serverWithLog(false);
    await app.inject({ method: 'GET', url: '/ok' });
    expect(lines).toEqual([]);
    await app.inject({ method: 'GET', url: '/noted', headers: { 'x-request-id': 'req-2' } });
    expect(lines).toEqual([expect.objectContaining({ msg: 'noted', reqId: 'req-2', detail: 42, level: 40 })]);
    const failed = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'req-3' } });
    expect(failed.statusCode).toBe(500);
    expect(lines[1]).toMatchObject({
      msg: 'request failed',
      reqId: 'req-3',
      level: 50,
      err: expect.objectContaining({ message: 'kaput' }),
    });
    await app.close();
  });
});
