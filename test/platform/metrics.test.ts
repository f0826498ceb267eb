import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/platform/metrics.js';

describe('HTTP metrics', () => {
  it('render as a Prometheus counter and a cumulative histogram per method and route', async () => {
    const metrics = new Metrics();
    metrics.http.record('GET', '/v3/x', 200, 0.0005);
    metrics.http.record('GET', '/v3/x', 200, 0.003);
    metrics.http.record('GET', '/v3/x', 404, 3);
    metrics.http.record('POST', '/v3/x', 201, 0.02);
    const text = await metrics.registry.metrics();
    for (const line of [
      '# TYPE pbs_http_requests_total counter',
      'pbs_http_requests_total{method="GET",route="/v3/x",status="200"} 2',
      'pbs_http_requests_total{method="GET",route="/v3/x",status="404"} 1',
      'pbs_http_requests_total{method="POST",route="/v3/x",status="201"} 1',
      '# TYPE pbs_http_request_duration_seconds histogram',
      'pbs_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/v3/x"} 1',
      'pbs_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v3/x"} 2',
      'pbs_http_request_duration_seconds_bucket{le="2.5",method="GET",route="/v3/x"} 2',
      'pbs_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v3/x"} 3',
      'pbs_http_request_duration_seconds_sum{method="GET",route="/v3/x"} 3.0035',
      'pbs_http_request_duration_seconds_count{method="GET",route="/v3/x"} 3',
      'pbs_http_request_duration_seconds_count{method="POST",route="/v3/x"} 1',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('escape label values and start again after a reset', async () => {
    const metrics = new Metrics();
    metrics.http.record('GET', '/a"b\\c', 200, 0.01);
    expect(await metrics.registry.metrics()).toContain('pbs_http_requests_total{method="GET",route="/a\\"b\\\\c",status="200"} 1');
    metrics.registry.resetMetrics();
    expect(await metrics.registry.metrics()).not.toContain('pbs_http_requests_total{');
  });
});

describe('GET /metrics with PBS_METRICS_TOKEN', () => {
  it('asks scrapers for the token as a bearer token, with the catalogue codes', async () => {
    const { call, startPbs } = await import('../support/harness.js');
    const h = await startPbs('sqlite', { env: { PBS_METRICS_TOKEN: 'scrape-me-0123456789' } });
    try {
      const missing = await call(h.url, 'GET', '/metrics');
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('TOKEN_MISSING');
      const wrong = await call(h.url, 'GET', '/metrics', { token: 'scrape-me-wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('TOKEN_INVALID');
      const ok = await call(h.url, 'GET', '/metrics', { token: 'scrape-me-0123456789' });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('pbs_http_requests_total');
      // Health and readiness stay open for probes.
      expect((await call(h.url, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
