// The layer rules of docs/family-layout.md, shared by eslint.config.js and the test that plants a
// violation of each (test/lint-rules.test.ts):
// - SQL (kysely) only in stores, tables and statements, and in the platform's database code;
// - HTTP (fastify) only in routes, modules, the platform's HTTP code and the composition root;
// - the database drivers (pg, better-sqlite3) only in the platform's database code and the
//   request-log writer thread;
// - transactions through `database.transact` only (the one transaction API);
// - a family's module.ts declares no route (routes live in route files);
// - no file in src (or the console's src) over 400 lines.

/** Files that may build SQL. */
export const SQL_FILES = [
  'src/**/*-store.ts',
  'src/**/*-tables.ts',
  'src/**/*-statements.ts',
  'src/platform/db/**',
  // The platform's own tables: the outbox and its relay, the change feed, background tasks.
  'src/platform/events.ts',
  'src/platform/event-relay.ts',
  'src/platform/change-feed.ts',
  'src/platform/tasks/**',
  // One settings row shared by businesses and reservations (docs/catalogue.md "Across processes").
  'src/businesses/catalog-sequence.ts',
];

/** Files that may speak HTTP. */
export const HTTP_FILES = [
  'src/**/routes.ts',
  'src/**/*-routes.ts',
  'src/**/module.ts',
  'src/platform/http/**',
  'src/platform/module.ts',
  'src/app.ts',
];

/**
 * Files that may open database connections with the drivers themselves: the platform's database
 * code, and the request-log writer thread (it runs apart from the server's pool: docs/request-log.md).
 */
export const DRIVER_FILES = ['src/platform/db/**', 'src/workbench/request-log-worker.ts'];

const noSql = { name: 'kysely', message: 'SQL lives in stores, tables and statements (docs/family-layout.md): call the family store.' };
const noDrivers = ['pg', 'better-sqlite3'].map((name) => ({
  name,
  message: 'Connections are the platform database code’s (docs/family-layout.md): take a Database or a store, never a driver.',
}));
const noHttp = { name: 'fastify', message: 'HTTP lives in routes and modules (docs/family-layout.md): services take plain values.' };
const restrict = (...paths) => ({ 'no-restricted-imports': ['error', { paths }] });

const noTransactionCall = {
  selector: "CallExpression[callee.property.name='transaction']",
  message: 'Changes run in database.transact (docs/family-layout.md): it groups commits on SQLite and is the one transaction API.',
};
const oneTransactionApi = { 'no-restricted-syntax': ['error', noTransactionCall] };
/** A family's module wires; its routes are declared in route files (docs/family-layout.md). */
const noRouteInModule = {
  selector: 'CallExpression[callee.property.name=/^(get|post|put|patch|delete|head|route)$/][arguments.0.value=/^\\//]',
  message: 'Routes live in routes.ts, admin-routes.ts or <topic>-routes.ts (docs/family-layout.md): module.ts registers them.',
};

export const layerRules = [
  { files: ['src/**/*.ts'], ignores: [...SQL_FILES, ...HTTP_FILES, ...DRIVER_FILES], rules: restrict(noSql, noHttp, ...noDrivers) },
  { files: SQL_FILES, ignores: [...HTTP_FILES, ...DRIVER_FILES], rules: restrict(noHttp, ...noDrivers) },
  { files: HTTP_FILES, ignores: [...SQL_FILES, ...DRIVER_FILES], rules: restrict(noSql, ...noDrivers) },
  // The driver files: platform/db builds SQL too; the writer thread uses the drivers' own statements.
  { files: ['src/platform/db/**'], rules: restrict(noHttp) },
  { files: ['src/workbench/request-log-worker.ts'], rules: restrict(noSql, noHttp) },
  { files: ['src/**/*.ts'], ignores: ['src/platform/db/**'], rules: oneTransactionApi },
  // A family's module.ts: the transaction rule above, and no route of its own.
  {
    files: ['src/*/module.ts'],
    ignores: ['src/platform/**'],
    rules: { 'no-restricted-syntax': ['error', noTransactionCall, noRouteInModule] },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'console/src/**/*.ts', 'console/src/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
];
