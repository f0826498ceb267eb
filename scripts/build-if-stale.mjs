// `npm start` builds only what is older than its sources (README, "Two commands"): the server
// (tsc into dist/), the SDK (packages/sdk/dist) and the console and portal pages (vite into
// dist/console). `npm ci` has built everything already (its `prepare`), so a start after it, or
// a restart without changes, goes straight to the server.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

const parts = [
  { name: 'server', sources: ['src', 'tsconfig.json'], output: 'dist/main.js', command: ['tsc', '-p', 'tsconfig.json'] },
  {
    name: 'SDK',
    sources: ['packages/sdk/src', 'packages/sdk/tsconfig.json'],
    output: 'packages/sdk/dist/index.js',
    command: ['tsc', '-p', 'packages/sdk/tsconfig.json'],
  },
  {
    name: 'console and portal',
    sources: ['console'],
    output: 'dist/console/index.html',
    command: ['vite', 'build', '--config', 'console/vite.config.ts'],
  },
];

/** The newest modification time under `entry` (a file or a folder), in ms. */
function newest(entry) {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, child)));
  return latest;
}

/** Whether `part` must be built: its output is missing or older than one of its sources. */
export function isStale(part, base = root) {
  const output = path.join(base, part.output);
  if (!fs.existsSync(output)) return true;
  const built = fs.statSync(output).mtimeMs;
  return part.sources.some((source) => newest(path.join(base, source)) > built);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const part of parts) {
    if (!isStale(part)) continue;
    process.stdout.write(`building the ${part.name} (its sources changed)\n`);
    const result = spawnSync('npx', part.command, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
