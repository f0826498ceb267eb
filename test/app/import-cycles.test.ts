import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parsedSources, SRC } from '../support/source-files.js';

/**
 * The files of `src` a file imports for their values (`import type` and imports of types only
 * are erased when compiled, so they order nothing at run time).
 */
function valueImports(source: ts.SourceFile): string[] {
  const out: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typesOnly) specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.'))
      out.push(path.resolve(path.dirname(source.fileName), specifier.text).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** Groups of files that import one another in a circle (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(path.relative(SRC, w));
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Issue 41: no import cycle in src, so every module is whole when another first uses it. */
describe('the modules of src', () => {
  it('import one another without a cycle', () => {
    const graph = new Map(parsedSources().map((source) => [source.fileName, valueImports(source)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
    // The finder itself: a planted circle is found.
    expect(
      cycles(
        new Map([
          ['/a', ['/b']],
          ['/b', ['/c']],
          ['/c', ['/a']],
        ]),
      ),
    ).toHaveLength(1);
  });
});
