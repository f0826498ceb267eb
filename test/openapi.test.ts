import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startPbs, type Harness } from './support/harness.js';

describe('OpenAPI document and docs page', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs('sqlite');
  });
  afterAll(() => h.close());

  it('serves a valid OpenAPI 3.1 document generated from the route schemas', async () => {
    const r = await call(h.url, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(r.body));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const paths = Object.keys(r.body.paths);
    for (const path of ['/oauth2/token', '/admin/v1/partners', '/admin/v1/partners/{partner_id}/credentials', '/admin/v1/businesses/import', '/admin/v1/clock', '/healthz']) {
      expect(paths).toContain(path);
    }
    expect(paths).not.toContain('/openapi.json');
    expect(r.body.components.securitySchemes).toHaveProperty('bearerAuth');
    expect(r.body.components.schemas).toHaveProperty('ErrorResponse');
    expect(r.body.paths['/admin/v1/partners'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
  });

  it('renders the document for a person at /docs', async () => {
    const page = await call(h.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    const bundle = await call(h.url, 'GET', '/docs/static/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });
});
