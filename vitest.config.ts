import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests bind loopback ports and open LMDB environments; forks keep
    // each file in its own process so a native crash names its file.
    pool: 'forks',
    maxWorkers: 2,
  },
});
