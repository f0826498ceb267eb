import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Code and docs cite pbs's contract notes as `docs/contract/<page>.md §N.M`: every citation names
// a page that exists and a section that page has as a heading, so a reader of a clone can follow it.

const root = path.resolve(import.meta.dirname, '../..');

function files(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) files(relative, out);
    else if (/\.(ts|tsx|md)$/.test(entry.name)) out.push(relative);
  }
  return out;
}

describe('citations of docs/contract', () => {
  it('name a page and a section heading that exist', () => {
    const sources = [...files('src'), ...files('docs').filter((f) => !f.endsWith('benchmarks-history.md')), 'README.md'];
    const headings = new Map<string, string[]>();
    let citations = 0;
    const broken: string[] = [];
    for (const file of sources) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const [, page, section] of text.matchAll(/docs\/contract\/([a-z-]+)\.md §(\d+(?:\.\d+)?)/g)) {
        citations++;
        const pageFile = path.join(root, 'docs/contract', `${page}.md`);
        if (!headings.has(page)) {
          headings.set(
            page,
            fs.existsSync(pageFile)
              ? fs
                  .readFileSync(pageFile, 'utf8')
                  .split('\n')
                  .filter((l) => l.startsWith('#'))
              : [],
          );
        }
        const found = headings.get(page)!.some((h) => new RegExp(`§${section.replace('.', '\\.')}(?![.\\d])`).test(h));
        if (!found) broken.push(`${file}: docs/contract/${page}.md §${section}`);
      }
    }
    expect(citations).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('leave no citation of a file outside the repository', () => {
    const offenders = [...files('src'), ...files('test'), 'README.md'].filter((f) =>
      /shared\/reference|\bfacts\.md\b/.test(fs.readFileSync(path.join(root, f), 'utf8')),
    );
    expect(offenders.filter((f) => f !== 'test/app/contract-citations.test.ts')).toEqual([]);
  });
});
