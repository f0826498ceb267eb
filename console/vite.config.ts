import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The operator console and the partner portal: built into dist/console, served by pbs at
// /console and /portal (their shared assets under /console/assets/).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 200,
    rollupOptions: {
      input: {
        console: fileURLToPath(new URL('index.html', import.meta.url)),
        portal: fileURLToPath(new URL('portal.html', import.meta.url)),
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run console:dev`: the console with hot reload, its API calls sent to the pbs on :8080.
  server: { proxy: Object.fromEntries(['/admin', '/portal/v1', '/portal/sign-in', '/openapi.json'].map((p) => [p, `http://127.0.0.1:${process.env.PORT ?? 8080}`])) },
  logLevel: 'warn',
});
