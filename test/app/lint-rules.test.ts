import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without types (the lint configuration's own rules).
import { layerRules } from '../../eslint.layers.js';

// The layer rules of docs/family-layout.md fail on a planted violation of each. The text is
// linted as if it were the named file (nothing is written), with the rules eslint.config.js uses.

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...(layerRules as object[])],
});

async function problems(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the layer rules', () => {
  it('keep SQL in stores, tables and statements', async () => {
    const code = "import { sql } from 'kysely';\nexport const q = sql`select 1`;\n";
    expect((await problems('src/advertising/planted-service.ts', code)).join('\n')).toMatch(/no-restricted-imports.*SQL lives in stores/);
    expect(await problems('src/advertising/planted-store.ts', code)).toEqual([]);
    expect(await problems('src/reservations/planted-statements.ts', code)).toEqual([]);
    expect((await problems('src/advertising/routes.ts', code)).join('\n')).toMatch(/SQL lives in stores/);
  });

  it('keep HTTP in routes and modules', async () => {
    const code = "import type { FastifyRequest } from 'fastify';\nexport type R = FastifyRequest;\n";
    expect((await problems('src/waitlist/planted-service.ts', code)).join('\n')).toMatch(/no-restricted-imports.*HTTP lives in routes/);
    expect((await problems('src/waitlist/planted-store.ts', code)).join('\n')).toMatch(/HTTP lives in routes/);
    expect(await problems('src/waitlist/planted-routes.ts', code)).toEqual([]);
    expect(await problems('src/waitlist/module.ts', code)).toEqual([]);
  });

  it('keep the database drivers in the platform database code', async () => {
    for (const driver of ['pg', 'better-sqlite3']) {
      const code = `import driver from '${driver}';\nexport const d = driver;\n`;
      for (const file of ['src/reviews/planted-service.ts', 'src/reviews/planted-store.ts', 'src/reviews/planted-routes.ts'])
        expect((await problems(file, code)).join('\n'), `${driver} in ${file}`).toMatch(/no-restricted-imports.*never a driver/);
      expect(await problems('src/platform/db/planted.ts', code)).toEqual([]);
    }
  });

  it('keep routes in route files: a module registers them', async () => {
    const code = "export const routes = async (app: any) => {\n  app.get('/v3/planted', async () => ({}));\n};\n";
    expect((await problems('src/reviews/module.ts', code)).join('\n')).toMatch(/no-restricted-syntax.*Routes live in routes\.ts/);
    expect(await problems('src/reviews/routes.ts', code)).toEqual([]);
    expect(await problems('src/reviews/admin-routes.ts', code)).toEqual([]);
    // A map's get is no route.
    expect(await problems('src/reviews/module.ts', "export const v = new Map<string, number>().get('x');\n")).toEqual([]);
  });

  it('keep one transaction API: database.transact', async () => {
    const code =
      'export const f = (db: { transaction(): { execute(w: () => Promise<void>): Promise<void> } }) => db.transaction().execute(async () => {});\n';
    expect((await problems('src/partners/planted-service.ts', code)).join('\n')).toMatch(/no-restricted-syntax.*database\.transact/);
    expect(await problems('src/platform/db/planted.ts', code)).toEqual([]);
  });

  it('keep every file in src under 400 lines, naming the file', async () => {
    const long = Array.from({ length: 401 }, (_, i) => `export const line${i} = ${i};`).join('\n');
    expect((await problems('src/engagement/planted-service.ts', long)).join('\n')).toMatch(/max-lines.*401.*400/);
    expect(await problems('src/engagement/planted-service.ts', long.split('\n').slice(0, 400).join('\n'))).toEqual([]);
  });
});
