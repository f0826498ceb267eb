// Prints how each API family matches the one shape of docs/family-layout.md (npm run family-shape),
// and exits 1 when one does not. test/app/family-shape.test.ts holds every family to it.
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(import.meta.dirname, '../src');

export interface FamilyShape {
  family: string;
  /** module.ts declares no route: they are in route files. */
  routesInRouteFiles: boolean;
  /** module.ts exports the family's `<family>Services(…)` factory (families with services). */
  factory: boolean;
  /** A family with tables has its SQL in a store and its tables apart. */
  storeAndTables: boolean;
}

const ROUTE_CALL = /\b(app|fastify)\.(get|post|put|patch|delete|head|route)\(\s*['`]\//;

/** Every family under src (a folder with a module.ts; the platform is not a family). */
export function familyShapes(): FamilyShape[] {
  return fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'platform' && fs.existsSync(path.join(SRC, e.name, 'module.ts')))
    .map((e) => {
      const dir = path.join(SRC, e.name);
      const files = fs.readdirSync(dir);
      const module = fs.readFileSync(path.join(dir, 'module.ts'), 'utf8');
      // Families that own no service of their own (the operations endpoints, the system routes) need no factory.
      const ownsServices = !/^operations$/.test(e.name);
      const hasTables = /migrations:/.test(module);
      return {
        family: e.name,
        routesInRouteFiles: !ROUTE_CALL.test(module),
        factory: !ownsServices || /export function \w+Services\(/.test(module),
        storeAndTables: !hasTables || (files.some((f) => f.endsWith('-store.ts')) && files.some((f) => f.endsWith('-tables.ts'))),
      };
    });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = familyShapes();
  const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
  process.stdout.write('family         routes in route files  factory  store and tables\n');
  for (const r of rows)
    process.stdout.write(
      `${r.family.padEnd(15)}${mark(r.routesInRouteFiles).padEnd(23)}${mark(r.factory).padEnd(9)}${mark(r.storeAndTables)}\n`,
    );
  process.exit(rows.every((r) => r.routesInRouteFiles && r.factory && r.storeAndTables) ? 0 : 1);
}
