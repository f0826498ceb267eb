import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startPbs, type Harness } from '../support/harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

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
    for (const path of [
      '/oauth2/token',
      '/admin/v1/partners',
      '/admin/v1/partners/{partner_id}/credentials',
      '/admin/v1/businesses/import',
      '/admin/v1/clock',
      '/healthz',
    ]) {
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

describe('the committed OpenAPI document', () => {
  let h: Harness;
  let served: any;
  beforeAll(async () => {
    h = await startPbs('sqlite');
    served = (await call(h.url, 'GET', '/openapi.json')).body;
  });
  afterAll(() => h.close());

  it('is what the routes generate (run `npm run openapi` after changing a route)', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8'));
    expect(served).toEqual(committed);
  });

  it('documents every partner parameter with a type, and every status the guards can answer', () => {
    for (const [route, item] of Object.entries(served.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op['x-pbs-partner']) continue;
        const what = `${method.toUpperCase()} ${route}`;
        for (const parameter of op.parameters ?? [])
          expect(parameter.schema?.type ?? parameter.schema?.$ref, `${what} ${parameter.name}`).toBeDefined();
        for (const status of ['200', '401', '403', '429']) {
          if (
            status === '200' &&
            (method === 'post' || method === 'delete') &&
            (op.responses['202'] || op.responses['201'] || op.responses['204'])
          )
            continue;
          expect(op.responses, what).toHaveProperty(status);
        }
      }
    }
  });

  it('bounds every number an operator route reads (no 1e20 reaches a query or the clock)', () => {
    const unbounded: string[] = [];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object' || schema.$ref) return;
      const types = ([] as string[]).concat(schema.type ?? []);
      if ((types.includes('integer') || types.includes('number')) && schema.maximum === undefined) unbounded.push(where);
      for (const [name, property] of Object.entries(schema.properties ?? {})) walk(property, `${where}.${name}`);
      if (schema.items) walk(schema.items, `${where}[]`);
    };
    for (const [route, item] of Object.entries(served.paths as Record<string, Record<string, any>>)) {
      if (!route.startsWith('/admin/')) continue;
      for (const [method, op] of Object.entries(item)) {
        const what = `${method.toUpperCase()} ${route}`;
        for (const parameter of op.parameters ?? []) walk(parameter.schema, `${what} ${parameter.in} ${parameter.name}`);
        for (const content of Object.values(op.requestBody?.content ?? {}) as any[]) walk(content.schema, `${what} body`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('gives a client generated from it types that compile', async () => {
    const { default: openapiTS, astToString } = await import('openapi-typescript');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-client-'));
    try {
      fs.writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(structuredClone(served))));
      fs.writeFileSync(
        path.join(dir, 'client.ts'),
        `import type { components, paths } from './api';
type Openings = paths['/v3/bookings/{business_id}/openings']['get'];
const query: NonNullable<Openings['parameters']['query']> = { date: '2031-05-07', time: '19:00', covers: 2 };
type OpeningsOk = Openings['responses'][200]['content']['application/json'];
const firstTime = (r: OpeningsOk): string | undefined => r.reservation_times[0]?.times[0]?.time;
type HoldForm = paths['/v3/bookings/{business_id}/holds']['post']['requestBody']['content']['application/x-www-form-urlencoded'];
const form: HoldForm = { date: '2031-05-07', time: '19:00', covers: 2, unique_id: 'device-1' };
type Hold = paths['/v3/bookings/{business_id}/holds']['post']['responses'][200]['content']['application/json'];
const holdId = (h: Hold): string | null => h.hold_id;
type SearchOk = paths['/v3/businesses/search']['get']['responses'][200]['content']['application/json'];
const ids = (r: SearchOk): string[] => r.businesses.map((b) => b.id);
const code = (e: components['schemas']['ErrorResponse']): string => e.error.code;
type Denied = paths['/v3/webhooks/whitelists/businesses/add']['post']['responses'][403]['content']['application/json'];
const denied = (e: Denied): string => e.error.description;
export { query, firstTime, form, holdId, ids, code, denied };
`,
      );
      const ts = await import('typescript');
      const program = ts.createProgram([path.join(dir, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        skipLibCheck: true,
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
