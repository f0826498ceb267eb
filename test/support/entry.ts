import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUILT = path.join(ROOT, 'dist/main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

/** True when dist/ was built after the last change to src/ (scripts/test.sh builds it first). */
export function builtIsFresh(): boolean {
  return fs.existsSync(BUILT) && fs.statSync(BUILT).mtimeMs >= newestSource(path.join(ROOT, 'src'));
}

/**
 * How tests start pbs: the built CLI, as `npx pbs` and the container run it, when it is fresh;
 * otherwise the sources through tsx, which compiles them on every start (seconds on a busy
 * machine), so a run of one file after an edit still tests the edit.
 */
export const PBS_ENTRY: string[] = builtIsFresh() ? [BUILT] : ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
