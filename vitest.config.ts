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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
