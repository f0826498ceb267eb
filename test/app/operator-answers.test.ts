import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };

/** Whether an operation declares a success answer with a shape (or 204, an answer without a body). */
function typed(op: Operation): boolean {
  return Object.entries(op.responses ?? {}).some(
    ([code, answer]) =>
      code === '204' ||
      (code.startsWith('2') &&
        Object.values(answer.content ?? {}).some(
          (c) => c.schema && ('properties' in c.schema || '$ref' in c.schema || 'items' in c.schema),
        )),
  );
}

describe('the operator API’s answers', () => {
  // Issue 27: every operator route declares what it answers, so the SDK's types (and the console) know its fields.
  it('are declared for every operator route', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const untyped = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith('/admin/'))
      .flatMap(([p, item]) => Object.entries(item).flatMap(([method, op]) => (typed(op) ? [] : [`${method.toUpperCase()} ${p}`])));
    expect(untyped, 'operator routes without a response schema').toEqual([]);
  });
});
