// Lint with type information, plus the architecture's folder rules (docs/architecture.md):
// - src/platform imports no family, and nothing imports the composition root (app.ts, cli.ts);
// - SQL, HTTP and file size by layer (eslint.layers.js, docs/family-layout.md);
// - a family reaches another family's tables only through that family's exported functions:
//   it imports no other family's store or table modules (types excepted), and `pbs/own-tables`
//   flags any query of its naming a table another family declares.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint.layers.js';

const root = path.dirname(new URL(import.meta.url).pathname);
const families = fs
  .readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'platform')
  .map((d) => d.name);

/** The folder (family, or platform) of a file under src/, or undefined outside it. */
function familyOf(file) {
  const relative = path.relative(path.join(root, 'src'), file);
  if (relative.startsWith('..')) return undefined;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length === 0 ? 'root' : first;
}

/** table → owning folder, read from every `interface Tables { … }` declaration under src/. */
function tableOwners() {
  const owners = new Map();
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        const text = fs.readFileSync(full, 'utf8');
        for (const block of text.matchAll(/interface Tables \{([^}]*)\}/g)) {
          for (const [, table] of block[1].matchAll(/^\s*([a-z_]+)\s*:/gm)) owners.set(table, familyOf(full));
        }
      }
    }
  };
  walk(path.join(root, 'src'));
  return owners;
}

const KYSELY_TABLE_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'mergeInto',
]);
const SQL_TABLE = /\b(?:from|join|into|update)\s+([a-z_]+)/gi;

const ownTables = {
  meta: {
    type: 'problem',
    messages: { foreign: 'The {{owner}} family owns the table "{{table}}": use its exported functions instead.' },
    schema: [],
  },
  create(context) {
    const mine = familyOf(context.filename);
    if (mine === undefined || mine === 'root') return {};
    const owners = tableOwners();
    const check = (node, table) => {
      const owner = owners.get(table);
      if (owner && owner !== mine && owner !== 'platform') context.report({ node, messageId: 'foreign', data: { owner, table } });
    };
    const checkText = (node, text) => {
      for (const [, table] of text.matchAll(SQL_TABLE)) check(node, table.toLowerCase());
    };
    return {
      CallExpression(node) {
        const callee = node.callee;
        const name =
          callee.type === 'MemberExpression' && callee.property.type === 'Identifier'
            ? callee.property.name
            : callee.type === 'Identifier'
              ? callee.name
              : undefined;
        const first = node.arguments[0];
        if (name && KYSELY_TABLE_METHODS.has(name) && first?.type === 'Literal' && typeof first.value === 'string') {
          check(first, first.value.split(/\s+as\s+/)[0].trim());
        }
      },
      TemplateLiteral(node) {
        for (const quasi of node.quasis) checkText(quasi, quasi.value.cooked ?? '');
      },
      Literal(node) {
        if (typeof node.value === 'string' && /\b(select|insert|update|delete)\b/i.test(node.value)) checkText(node, node.value);
      },
    };
  },
};

const familyGlobs = families.map((f) => `**/${f}/**`);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '**/dist/**',
      'node_modules/**',
      'coverage/**',
      '.prof/**',
      'eslint.config.js',
      'eslint.layers.js',
      'bin/**',
      '**/*.mjs',
      'vitest.config.ts',
      'console/vite.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: ['./tsconfig.check.json', './console/tsconfig.json'], tsconfigRootDir: root } },
    plugins: { pbs: { rules: { 'own-tables': ownTables } } },
    rules: {
      'pbs/own-tables': 'error',
      // Fastify hooks and handlers are async by contract; floating promises are the real risk.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Request bodies, parsed JSON and SQL rows are typed at the boundary with casts; `any`
      // stays out of src (below) but the unsafe-* family would flag every such boundary.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // It judges narrowing differently from tsc here and removed assertions tsc needs.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
      // Prettier (printWidth 140, .prettierrc.json) formats the code; this holds comments to the same width.
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  ...layerRules,
  {
    files: ['src/platform/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...familyGlobs, '**/app.js', '**/services.js', '**/cli.js'],
              message: 'src/platform imports no family and not the composition root.',
            },
          ],
        },
      ],
    },
  },
  {
    files: families.map((f) => `src/${f}/**/*.ts`),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/app.js', '**/services.js', '**/cli.js'],
              message: 'Families do not import the composition root; take what you need as a parameter.',
            },
            {
              group: ['../*/*-store.js', '../*/*-tables.js'],
              allowTypeImports: true,
              message: "Another family's tables are reached through that family's exported functions (its service), not its store.",
            },
          ],
        },
      ],
    },
  },
  // Generated by scripts/openapi.ts (descriptions come from the route schemas as written).
  { files: ['packages/sdk/src/schema.ts', 'packages/sdk/src/error-codes.ts'], rules: { 'max-len': 'off' } },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
