import { describe, expect, it } from 'vitest';
import { familyShapes } from '../../scripts/family-shape.js';

/** Issue 41: every family in the one shape of docs/family-layout.md (`npm run family-shape` prints the table). */
describe('the families of src', () => {
  it('all have their routes in route files, a services factory, and a store beside their tables', () => {
    const shapes = familyShapes();
    expect(shapes.length).toBeGreaterThanOrEqual(11);
    expect(shapes.filter((s) => !(s.routesInRouteFiles && s.factory && s.storeAndTables))).toEqual([]);
  });
});
