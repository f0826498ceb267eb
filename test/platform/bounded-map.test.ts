import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoundedMap, BoundedSet } from '../../src/platform/bounded-map.js';

/** Issue 41: the bounded memo is offered once, in platform/, and not hand-rolled again. */
describe('BoundedMap and BoundedSet', () => {
  it('empty themselves when a new key would pass the bound, and keep a known key without emptying', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.set('a', 3); // known: no emptying
    expect([...map]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    map.set('c', 4); // new and full: emptied first
    expect([...map]).toEqual([['c', 4]]);
    const set = new BoundedSet<string>(2);
    set.add('x').add('y').add('x');
    expect([...set]).toEqual(['x', 'y']);
    set.add('z');
    expect([...set]).toEqual(['z']);
  });

  it('are the only bounded memo in src: no map or set is emptied by hand when it grows past a size', () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const handRolled: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && !file.endsWith('bounded-map.ts'))
          fs.readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (/\.size\s*>=?\s*[\w.]+(\s*&&[^)]*)?\)\s*[\w.]+\.clear\(\)/.test(line))
                handRolled.push(`${path.relative(root, file)}:${i + 1}`);
            });
      }
    };
    walk(root);
    expect(handRolled).toEqual([]);
  });
});
