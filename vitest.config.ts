import { defineConfig } from 'vitest/config'

// The Remix Vite plugin is for the app build only; tests import modules directly.
export default defineConfig({
  test: {
    include: [
      'app/**/*.test.ts',
      'db/**/*.test.ts',
      'pipeline/**/*.test.ts',
      'sync/**/*.test.ts',
      'tests/**/*.test.ts',
    ],
    // The CLI and browser tests run against the build, in vitest.e2e.config.ts.
    exclude: ['tests/e2e/**', 'node_modules/**'],
    globalSetup: ['./tests/setup/global-setup.ts'],
    setupFiles: ['./tests/setup/setup-test-env.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
