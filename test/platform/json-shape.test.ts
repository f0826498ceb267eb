import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH } from '../../src/platform/json-shape.js';

/** Pure: the scan that refuses deep or wide JSON before JSON.parse sees it (docs/security.md). */
describe('JSON shape limits', () => {
  it('counts nesting and values outside strings only', () => {
    expect(jsonShapeProblem('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonShapeProblem('['.repeat(MAX_JSON_DEPTH + 1))).toMatch(/deeper than 32/);
    expect(jsonShapeProblem(`{"a":"${'['.repeat(1000)}","b":"\\"[[[[","c":[1,2]}`)).toBeUndefined();
    expect(jsonShapeProblem(`["\\\\",${'['.repeat(40)}]`)).toMatch(/deeper/);
    expect(jsonShapeProblem('[1,2,3]', 32, 2)).toMatch(/more than 2 values/);
    expect(jsonShapeProblem('["a,b,c,d"]', 32, 2)).toBeUndefined();
  });

  it('stops at the first bracket too deep, whatever follows', () => {
    // The scan is linear and ends early: a body of millions of brackets costs what its first 33 do.
    const huge = '['.repeat(5_000_000);
    expect(jsonShapeProblem(huge)).toMatch(/deeper/);
  });
});
