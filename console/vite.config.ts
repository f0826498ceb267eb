import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The operator console: built into dist/console and served by pbs at /console/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: { outDir: fileURLToPath(new URL('../dist/console', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 200 },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run console:dev`: the console with hot reload, its API calls sent to the pbs on :8080.
  server: { proxy: { '/admin': `http://127.0.0.1:${process.env.PORT ?? 8080}` } },
  logLevel: 'warn',
});
