import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests and examples use the SDK from its sources (its package exports the built dist/).
  resolve: { alias: { '@pbs/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two cores: two files at a time keeps PostgreSQL and the CPU from thrashing.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Tests wait for conditions with one deadline (test/support/wait.ts, PBS_TEST_DEADLINE_MS,
    // two minutes); a test or hook may hold a few such waits, on a machine ten times slower.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Every file stops the processes it started, however it ended.
    setupFiles: ['test/support/setup.ts'],
    reporters: ['default'],
  },
});
