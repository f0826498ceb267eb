#!/usr/bin/env -S node --max-semi-space-size=64
// The flag is package.json's config.serverNodeFlags (see docs/architecture.md, "Memory"); keep them equal.
// The CLI is compiled to dist/ by `npm run build` (run automatically by `npm ci` and `npm start`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('pbs is not built yet: run `npm run build` first.\n');
  process.exit(1);
}
await import(entry.href);
