import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The root of pbs's sources. */
export const SRC = path.resolve(import.meta.dirname, '../../src');

/** Every TypeScript file under `dir`, parsed (for the tests that read the code's shape). */
export function parsedSources(dir = SRC): ts.SourceFile[] {
  const out: ts.SourceFile[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) out.push(ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
    }
  };
  walk(dir);
  return out;
}
