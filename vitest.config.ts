import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server for the whole run; each test file runs its own worker on its own task queue. The
    // pages' scripts are built first, from the sources as they are.
    globalSetup: ['test/support/page-scripts.ts', 'test/support/temporal-dev-server.ts'],
    setupFiles: ['test/support/quiet-sdk.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
