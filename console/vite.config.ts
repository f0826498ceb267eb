import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The operator console: built into dist/console and served by pbs at /console/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: { outDir: fileURLToPath(new URL('../dist/console', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 200 },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
});
