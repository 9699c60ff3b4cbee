import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every HTTP response a test receives through fetch is checked against its route's OpenAPI schema.
    setupFiles: ['test/helpers/openapi-responses.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests bind loopback ports and open LMDB environments; forks keep
    // each file in its own process so a native crash names its file.
    pool: 'forks',
    maxWorkers: 2,
  },
});
