// Links this package's own `pbs` command into node_modules/.bin (npm links the commands of
// dependencies there, never the package's own), so `npx pbs` in a clone runs bin/pbs.js at once
// instead of first installing the whole project into npm's cache (34 s on a fresh machine).
// Run by `prepare`, after `npm ci` or `npm install`.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const binDir = path.join(root, 'node_modules', '.bin');
const link = path.join(binDir, 'pbs');
const target = path.relative(binDir, path.join(root, 'bin', 'pbs.js'));
fs.mkdirSync(binDir, { recursive: true });
try {
  if (fs.readlinkSync(link) === target) process.exit(0);
  fs.rmSync(link);
} catch {
  // no link yet (or not a link: replaced below)
  fs.rmSync(link, { force: true });
}
fs.symlinkSync(target, link);
