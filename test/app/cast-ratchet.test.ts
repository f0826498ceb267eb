import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parsedSources, SRC } from '../support/source-files.js';

/** Lines above a cast within which its reason must be written (a comment, or a doc comment of a few lines). */
const REASON_WITHIN_LINES = 6;

/**
 * The casts (`x as T`, `<T>x`; `as const` is no cast) and non-null assertions (`x!`) of one
 * file, and the casts with no comment on their line or the few above it (no reason written).
 */
function castsOf(source: ts.SourceFile): { casts: string[]; nonNull: string[]; unexplained: string[] } {
  const casts: string[] = [];
  const nonNull: string[] = [];
  const unexplained: string[] = [];
  const lines = source.text.split('\n');
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const where = (node: ts.Node) => `${path.relative(SRC, source.fileName)}:${lineOf(node) + 1}`;
  const explained = (line: number) =>
    lines.slice(Math.max(0, line - REASON_WITHIN_LINES), line + 1).some((text) => /(^\s*(\/\/|\/?\*))|\/\/ /.test(text));
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
      if (!isConst) {
        casts.push(where(node));
        if (!explained(lineOf(node))) unexplained.push(where(node));
      }
    } else if (ts.isNonNullExpression(node)) nonNull.push(where(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { casts, nonNull, unexplained };
}

/**
 * Issue 41: casts do not creep back. docs/family-layout.md ("Types at the edge") writes how many
 * `src` holds; one more fails here, naming them all, so a new one is either narrowed instead or
 * the number is raised in the doc with the reason beside it.
 */
describe('casts in src', () => {
  it('are no more than docs/family-layout.md allows', () => {
    const doc = fs.readFileSync(path.resolve(SRC, '../docs/family-layout.md'), 'utf8');
    const allowed = /(\d+) casts \(`as`\) and (\d+) non-null assertions \(`!`\)/.exec(doc);
    expect(allowed, 'the numbers in docs/family-layout.md').not.toBeNull();
    const all = parsedSources().map(castsOf);
    const casts = all.flatMap((f) => f.casts);
    const nonNull = all.flatMap((f) => f.nonNull);
    expect(casts.length <= Number(allowed![1]) ? [] : casts, `more than ${allowed![1]} casts`).toEqual([]);
    expect(nonNull.length <= Number(allowed![2]) ? [] : nonNull, `more than ${allowed![2]} non-null assertions`).toEqual([]);
    expect(
      all.flatMap((f) => f.unexplained),
      'casts without a comment saying why',
    ).toEqual([]);
    // The counter itself: a planted cast and assertion are counted, `as const` is not.
    const planted = ts.createSourceFile(
      path.join(SRC, 'planted.ts'),
      'const a = b as C; const d = e!; const f = [1] as const;',
      ts.ScriptTarget.Latest,
      true,
    );
    expect(castsOf(planted)).toEqual({ casts: ['planted.ts:1'], nonNull: ['planted.ts:1'], unexplained: ['planted.ts:1'] });
    const explained = ts.createSourceFile(
      path.join(SRC, 'planted.ts'),
      '// Cast: b is a C, because.\nconst a = b as C;',
      ts.ScriptTarget.Latest,
      true,
    );
    expect(castsOf(explained).unexplained).toEqual([]);
  });
});
